import 'server-only'
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Provider, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'

/**
 * @internal The tests' identity provider: `oidc-provider` (the certified Node.js OpenID provider) on loopback,
 * configured as a company's would be for Mirrorboard — one confidential client (client_secret_basic, code flow,
 * PKCE S256 required), RS256-signed ID tokens carrying name, email and groups, RP-initiated logout — with the
 * test users below behind a login form of our own (the library's dev form has no password).
 *
 * Mirrorboard's refusals are exercised against it in two ways: the browser (or test) tampers with what passes
 * through it (state, nonce, the callback's `iss`), and `misbehave` makes the provider's next ID token wrong in one
 * chosen way (another issuer or audience, expired, signed with a key it does not publish) — re-signed after the
 * library issued it, since a certified provider cannot be asked to issue a wrong one.
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
}

export interface TestProviderOptions {
  port?: number
  clientId: string
  clientSecret: string
  redirectUris: string[]
  users?: readonly TestUser[]
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

const PAGE_STYLE = 'body{font-family:system-ui,sans-serif;max-width:24rem;margin:2rem auto;padding:0 1rem;color:#0f172a}label{display:block;margin:.75rem 0}input{display:block;width:100%;box-sizing:border-box;margin-top:.25rem;padding:.5rem;font:inherit}button{margin-top:.5rem;padding:.5rem 1rem;font:inherit}'

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body><main>${body}</main></body></html>`
}

export class OidcTestProvider {
  private server: Server | null = null
  private provider: Provider | null = null
  private readonly key: KeyObject
  private readonly foreignKey: KeyObject
  private readonly kid = randomBytes(6).toString('hex')
  private readonly privateJwk: Record<string, unknown>
  private misbehaviour: Misbehaviour | null = null
  private origin = ''
  /** Every token request's client authentication and parameter names, for tests that check how the secret travelled. */
  readonly tokenRequests: Array<{ authorization: string | undefined; parameters: string[] }> = []
  readonly users: readonly TestUser[]

  constructor(private readonly options: TestProviderOptions) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 })
    this.key = pair.privateKey
    this.foreignKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    this.privateJwk = { ...pair.privateKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: 'RS256' }
    this.users = options.users ?? TEST_USERS
  }

  get issuer(): string {
    return this.origin
  }

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' })
        response.end(String(error))
      })
    })
    await new Promise<void>((resolve) => server.listen(this.options.port ?? 0, '127.0.0.1', resolve))
    this.server = server
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    this.provider = this.makeProvider()
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

  private makeProvider(): Provider {
    const { clientId, clientSecret, redirectUris } = this.options
    const users = this.users
    const configuration: Configuration = {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: redirectUris,
          post_logout_redirect_uris: [...new Set(redirectUris.map((uri) => `${new URL(uri).origin}/login?signedOut=1`))],
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [this.privateJwk as never] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      // Groups travel with the profile, as a Keycloak or Okta groups mapper puts them in the ID token.
      claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email', 'email_verified'] },
      conformIdTokenClaims: false,
      ttl: { AuthorizationCode: 60, AccessToken: 300, IdToken: 300, Grant: 3600, Interaction: 600, Session: 3600 },
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        rpInitiatedLogout: {
          enabled: true,
          // Signs out without asking, as a provider does when the request carries its client (no visible hop in the journeys).
          logoutSource: (ctx, form) => {
            ctx.body = page('Signing out', `${form}<input type="hidden" form="op.logoutForm" name="logout" value="yes"><noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript><script>document.getElementById('op.logoutForm').submit()</script>`)
          },
        },
      },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      // A first-party application: nobody is asked to consent.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const client = ctx.oidc.client
        const session = ctx.oidc.session
        if (client === undefined || session === undefined || session.accountId === undefined) return undefined
        const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId)
        if (grantId !== undefined) {
          const existing = await ctx.oidc.provider.Grant.find(grantId)
          if (existing !== undefined) return existing
        }
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId })
        grant.addOIDCScope('openid profile email')
        await grant.save()
        return grant
      },
      findAccount: (_ctx, id) => {
        const user = users.find((candidate) => candidate.id === id)
        if (user === undefined) return undefined
        return { accountId: user.id, claims: () => ({ sub: user.id, name: user.name, email: user.email, email_verified: true, groups: user.groups }) }
      },
      renderError: (ctx, out) => {
        ctx.type = 'html'
        ctx.body = page('Sign-in error', `<h1>Sign-in error</h1><p role="alert">${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`)
      },
    }
    const provider = new Provider(this.origin, configuration)
    provider.use(async (ctx, next) => {
      await next()
      if (ctx.path !== '/token' || ctx.method !== 'POST') return
      this.tokenRequests.push({ authorization: ctx.get('authorization') || undefined, parameters: Object.keys((ctx as KoaContextWithOIDC).oidc?.body ?? {}) })
      const body = ctx.body as { id_token?: unknown } | undefined
      const odd = this.misbehaviour
      if (ctx.status !== 200 || odd === null || typeof body?.id_token !== 'string') return
      this.misbehaviour = null
      body.id_token = this.resign(body.id_token, odd)
    })
    return provider
  }

  /** The library's ID token with the chosen claims changed, signed again (with the published key unless told otherwise). */
  private resign(idToken: string, odd: Misbehaviour): string {
    const [header = '', payload = ''] = idToken.split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
    if (odd.issuer !== undefined) claims.iss = odd.issuer
    if (odd.audience !== undefined) claims.aud = odd.audience
    if (odd.nonce !== undefined) claims.nonce = odd.nonce
    if (odd.expiresIn !== undefined) claims.exp = Math.floor(Date.now() / 1000) + odd.expiresIn
    const data = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
    return `${data}.${sign('sha256', Buffer.from(data), odd.foreignKey === true ? this.foreignKey : this.key).toString('base64url')}`
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const provider = this.provider
    if (provider === null) throw new Error('the test provider is not started')
    const url = new URL(request.url ?? '/', this.origin)
    const interaction = /^\/interaction\/([\w-]+)$/.exec(url.pathname)
    if (interaction !== null) return this.interaction(provider, request, response)
    if (url.pathname === '/test/misbehave' && request.method === 'POST') {
      this.misbehave(JSON.parse(await readBody(request)) as Misbehaviour)
      return void response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')
    }
    provider.callback()(request, response)
  }

  /** The login form, and signing in with it: a wrong password shows the form again with the reason. */
  private async interaction(provider: Provider, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(request, response)
    const form = (error: string | null): void => {
      response.writeHead(error === null ? 200 : 401, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(
        page(
          'Test identity provider',
          `<h1>Test identity provider</h1>${error === null ? '' : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/interaction/${escapeHtml(details.uid)}">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form>`,
        ),
      )
    }
    if (request.method !== 'POST') return form(null)
    const fields = new URLSearchParams(await readBody(request))
    const user = this.users.find((candidate) => candidate.username === fields.get('username') && candidate.password === fields.get('password'))
    if (user === undefined) return form('Wrong username or password.')
    await provider.interactionFinished(request, response, { login: { accountId: user.id } }, { mergeWithLastSubmission: false })
  }
}

/** A browser's cookies at the provider, kept across a sign-in and a sign-out. */
export type ProviderCookieJar = Map<string, string>

function browserOf(jar: ProviderCookieJar) {
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), cookie: cookieHeader() }, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    return response
  }
}

/**
 * @internal Goes through the provider's login form as a browser would (following its redirects and keeping its
 * cookies in `jar`) from the URL a sign-in start sent the browser to, and returns where the provider sends it back.
 */
export async function signInThroughForm(authorizationUrl: string, username: string, password = `${username}-pass`, jar: ProviderCookieJar = new Map()): Promise<URL> {
  const browse = browserOf(jar)
  const origin = new URL(authorizationUrl).origin
  let url = authorizationUrl
  let init: RequestInit = {}
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await browse(url, init)
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location !== null) {
      const next = new URL(location, url)
      if (next.origin !== origin) return next
      url = next.toString()
      init = {}
      continue
    }
    const html = await response.text()
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]
    if (response.status !== 200 || action === undefined) throw new Error(`the provider answered ${response.status} without its form: ${html.slice(0, 300)}`)
    url = new URL(action, url).toString()
    init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username, password }).toString() }
  }
  throw new Error('the provider never sent the browser back')
}

/**
 * @internal Follows the provider's sign-out page (RP-initiated logout) as a browser would, confirming it as its
 * script does, and returns where the provider sends the browser after; throws with the page when the provider
 * refuses (a bad `id_token_hint`, an unregistered `post_logout_redirect_uri`).
 */
export async function signOutThroughProvider(endSessionUrl: string, jar: ProviderCookieJar): Promise<URL> {
  const browse = browserOf(jar)
  const page = await browse(endSessionUrl)
  const html = await page.text()
  const action = /<form[^>]*id="op.logoutForm"[^>]*action="([^"]+)"|<form[^>]*action="([^"]+)"[^>]*id="op.logoutForm"/.exec(html)
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1]
  if (page.status !== 200 || action === null || xsrf === undefined) throw new Error(`the provider answered ${page.status} without its sign-out form: ${html.slice(0, 400)}`)
  const confirmed = await browse(new URL(action[1] ?? action[2] ?? '', endSessionUrl).toString(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
  })
  const location = confirmed.headers.get('location')
  if (confirmed.status < 300 || confirmed.status >= 400 || location === null) throw new Error(`the provider answered the sign-out with ${confirmed.status}: ${(await confirmed.text()).slice(0, 300)}`)
  let next = new URL(location, endSessionUrl)
  // oidc-provider answers the confirmation at its own success page first when it has somewhere to go after.
  for (let hop = 0; hop < 5 && next.origin === new URL(endSessionUrl).origin; hop += 1) {
    const response = await browse(next.toString())
    const onward = response.headers.get('location')
    if (onward === null) break
    next = new URL(onward, next)
  }
  return next
}
