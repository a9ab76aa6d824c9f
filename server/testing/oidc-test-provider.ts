import 'server-only'
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * @internal An OpenID provider for tests, on loopback: discovery, a JWKS, a login form, the authorization code
 * flow with PKCE (S256 checked), client_secret_basic at the token endpoint, RS256-signed ID tokens, a provider
 * session cookie (a second sign-in skips the form, as a real provider's does) and RP-initiated logout. It signs
 * for real, so Mirrorboard's verification is exercised end to end; `misbehave` makes the next ID token wrong in
 * one chosen way (another issuer, audience or nonce, expired, signed with a key the JWKS does not publish).
 *
 * It is a test fake of the provider port, not a certified provider (the issue asks for `oidc-provider`, which
 * is not installed here; see docs/security.md).
 */

export interface TestUser {
  id: string
  username: string
  password: string
  name: string
  email: string
  groups: string[]
}

export const TEST_USERS: readonly TestUser[] = [
  { id: 'u-alice', username: 'alice', password: 'alice-pass', name: 'Alice Example', email: 'alice@example.com', groups: ['dr-eu'] },
  { id: 'u-bob', username: 'bob', password: 'bob-pass', name: 'Bob Admin', email: 'bob@example.com', groups: ['platform'] },
  { id: 'u-carol', username: 'carol', password: 'carol-pass', name: 'Carol Nobody', email: 'carol@example.com', groups: ['marketing'] },
  { id: 'u-dave', username: 'dave', password: 'dave-pass', name: 'Dave Viewer', email: 'dave@example.com', groups: ['readers'] },
  { id: 'u-erin', username: 'erin', password: 'erin-pass', name: 'Erin Scoped', email: 'erin@example.com', groups: ['eu-only'] },
]

export interface Misbehaviour {
  issuer?: string
  audience?: string
  nonce?: string
  /** Seconds; a negative one makes the token expired when issued. */
  expiresIn?: number
  /** Sign with a key the JWKS does not publish (under the published key's id). */
  foreignKey?: boolean
  /** Answer the callback with this `iss` parameter (RFC 9207). */
  callbackIssuer?: string
}

export interface TestProviderOptions {
  port?: number
  /** The host name in the issuer URL (127.0.0.1 or localhost); another site than the app's tests SameSite. */
  host?: string
  clientId: string
  clientSecret: string
  redirectUris: string[]
  users?: readonly TestUser[]
}

interface Grant {
  user: TestUser
  clientId: string
  redirectUri: string
  nonce: string | undefined
  codeChallenge: string
  expiresAt: number
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) return rest.join('=')
  }
  return undefined
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export class OidcTestProvider {
  private server: Server | null = null
  private readonly key: KeyObject
  private readonly foreignKey: KeyObject
  private readonly kid = randomBytes(6).toString('hex')
  private readonly publicJwk: Record<string, unknown>
  private readonly codes = new Map<string, Grant>()
  private readonly sessions = new Map<string, TestUser>()
  private misbehaviour: Misbehaviour | null = null
  private origin = ''
  /** Every token request's client authentication, for tests that check the secret travelled as it should. */
  readonly tokenRequests: Array<{ authorization: string | undefined; body: string }> = []
  readonly users: readonly TestUser[]

  constructor(private readonly options: TestProviderOptions) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 })
    this.key = pair.privateKey
    this.foreignKey = createPrivateKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }))
    this.publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: 'RS256' }
    this.users = options.users ?? TEST_USERS
  }

  get issuer(): string {
    return this.origin
  }

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error))
      })
    })
    await new Promise<void>((resolve) => server.listen(this.options.port ?? 0, '127.0.0.1', resolve))
    this.server = server
    this.origin = `http://${this.options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`
    return this.origin
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = null
    if (server === null) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** The next ID token is wrong in these ways; later ones are right again. */
  misbehave(misbehaviour: Misbehaviour): void {
    this.misbehaviour = misbehaviour
  }

  /** Forgets provider sessions: the next sign-in shows the form again. */
  forgetSessions(): void {
    this.sessions.clear()
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin)
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => void
      response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }).end(JSON.stringify(body))
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: this.origin,
        authorization_endpoint: `${this.origin}/authorize`,
        token_endpoint: `${this.origin}/token`,
        jwks_uri: `${this.origin}/jwks`,
        end_session_endpoint: `${this.origin}/logout`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        authorization_response_iss_parameter_supported: true,
      })
    }
    if (url.pathname === '/jwks') return json(200, { keys: [this.publicJwk] })
    if (url.pathname === '/authorize' && request.method === 'GET') return this.authorize(url.searchParams, request, response)
    if (url.pathname === '/authorize' && request.method === 'POST') return this.signIn(new URLSearchParams(await readBody(request)), response)
    if (url.pathname === '/token' && request.method === 'POST') return this.token(request, new URLSearchParams(await readBody(request)), json)
    if (url.pathname === '/logout') {
      const session = cookieOf(request, 'tidp_session')
      if (session !== undefined) this.sessions.delete(session)
      const back = url.searchParams.get('post_logout_redirect_uri')
      const allowed = back !== null && this.options.redirectUris.some((uri) => new URL(uri).origin === new URL(back).origin)
      response.writeHead(allowed ? 302 : 200, { 'Set-Cookie': 'tidp_session=; Path=/; Max-Age=0', ...(allowed ? { Location: back } : { 'Content-Type': 'text/html' }) })
      return void response.end(allowed ? '' : '<!doctype html><title>Signed out</title><p>Signed out of the test provider.</p>')
    }
    if (url.pathname === '/test/misbehave' && request.method === 'POST') {
      this.misbehave(JSON.parse(await readBody(request)) as Misbehaviour)
      return json(200, { ok: true })
    }
    if (url.pathname === '/test/forget-sessions' && request.method === 'POST') {
      this.forgetSessions()
      return json(200, { ok: true })
    }
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found')
  }

  private checkAuthorizationRequest(params: URLSearchParams): string | null {
    if (params.get('client_id') !== this.options.clientId) return 'unknown client_id'
    if (!this.options.redirectUris.includes(params.get('redirect_uri') ?? '')) return 'redirect_uri not registered'
    if (params.get('response_type') !== 'code') return 'response_type must be code'
    if (params.get('code_challenge_method') !== 'S256' || !params.get('code_challenge')) return 'PKCE with S256 is required'
    if (!(params.get('scope') ?? '').split(' ').includes('openid')) return 'scope must include openid'
    return null
  }

  private authorize(params: URLSearchParams, request: IncomingMessage, response: ServerResponse): void {
    const problem = this.checkAuthorizationRequest(params)
    if (problem !== null) return void response.writeHead(400, { 'Content-Type': 'text/plain' }).end(problem)
    const session = cookieOf(request, 'tidp_session')
    const user = session === undefined ? undefined : this.sessions.get(session)
    if (user !== undefined && params.get('prompt') !== 'login') return this.redirectWithCode(params, user, response)
    this.loginForm(params, response, null)
  }

  private loginForm(params: URLSearchParams, response: ServerResponse, error: string | null): void {
    const hidden = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method']
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? '')}">`)
      .join('')
    response.writeHead(error === null ? 200 : 401, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(`<!doctype html>
<html lang="en"><head><title>Test identity provider</title></head>
<body><main><h1>Test identity provider</h1>
${error === null ? '' : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/authorize">${hidden}
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>`)
  }

  private signIn(form: URLSearchParams, response: ServerResponse): void {
    const problem = this.checkAuthorizationRequest(form)
    if (problem !== null) return void response.writeHead(400, { 'Content-Type': 'text/plain' }).end(problem)
    const user = this.users.find((candidate) => candidate.username === form.get('username') && candidate.password === form.get('password'))
    if (user === undefined) return this.loginForm(form, response, 'Wrong username or password.')
    const session = randomBytes(16).toString('hex')
    this.sessions.set(session, user)
    this.redirectWithCode(form, user, response, `tidp_session=${session}; Path=/; HttpOnly; SameSite=Lax`)
  }

  private redirectWithCode(params: URLSearchParams, user: TestUser, response: ServerResponse, setCookie?: string): void {
    const code = randomBytes(24).toString('base64url')
    const redirectUri = params.get('redirect_uri') ?? ''
    this.codes.set(code, { user, clientId: this.options.clientId, redirectUri, nonce: params.get('nonce') ?? undefined, codeChallenge: params.get('code_challenge') ?? '', expiresAt: Date.now() + 60_000 })
    const back = new URL(redirectUri)
    back.searchParams.set('code', code)
    back.searchParams.set('state', params.get('state') ?? '')
    back.searchParams.set('iss', this.misbehaviour?.callbackIssuer ?? this.origin)
    response.writeHead(302, { Location: back.toString(), ...(setCookie === undefined ? {} : { 'Set-Cookie': setCookie }) }).end()
  }

  private token(request: IncomingMessage, form: URLSearchParams, json: (status: number, body: unknown) => void): void {
    const authorization = request.headers.authorization
    this.tokenRequests.push({ authorization, body: form.toString() })
    const expected = `Basic ${Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64')}`
    if (authorization !== expected) return json(401, { error: 'invalid_client' })
    const code = form.get('code') ?? ''
    const grant = this.codes.get(code)
    this.codes.delete(code)
    if (form.get('grant_type') !== 'authorization_code' || grant === undefined || grant.expiresAt < Date.now()) return json(400, { error: 'invalid_grant' })
    if (form.get('redirect_uri') !== grant.redirectUri) return json(400, { error: 'invalid_grant', error_description: 'redirect_uri differs' })
    const verifier = form.get('code_verifier') ?? ''
    if (createHash('sha256').update(verifier, 'ascii').digest('base64url') !== grant.codeChallenge) return json(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' })
    const odd = this.misbehaviour ?? {}
    this.misbehaviour = null
    const now = Math.floor(Date.now() / 1000)
    const claims = {
      iss: odd.issuer ?? this.origin,
      sub: grant.user.id,
      aud: odd.audience ?? grant.clientId,
      iat: now,
      exp: now + (odd.expiresIn ?? 300),
      ...(grant.nonce === undefined && odd.nonce === undefined ? {} : { nonce: odd.nonce ?? grant.nonce }),
      name: grant.user.name,
      email: grant.user.email,
      email_verified: true,
      groups: grant.user.groups,
    }
    json(200, { access_token: randomBytes(24).toString('base64url'), token_type: 'Bearer', expires_in: 300, id_token: this.sign(claims, odd.foreignKey === true) })
  }

  private sign(claims: Record<string, unknown>, foreign: boolean): string {
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: this.kid })).toString('base64url')
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), foreign ? this.foreignKey : this.key).toString('base64url')
    return `${header}.${payload}.${signature}`
  }
}
