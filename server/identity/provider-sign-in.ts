import 'server-only'
import { readFile } from 'node:fs/promises'
import { SignInRefused } from '@/lib/auth/id-token-claims'
import { parseRolesFile, RolesFileError, type RoleRule } from '@/lib/auth/roles-file'
import type { OidcConfig } from '../config'
import { OidcClient, type SignedInIdentity } from './oidc-client'
import { PendingSignIns, PENDING_TTL_MS } from './pending-sign-ins'

/**
 * Sign-in through the identity provider as the routes use it: starting one remembers it server-side and binds it
 * to the browser with a cookie holding its state, so a callback carrying a state this browser did not start
 * (login CSRF: an attacker's code pasted into a victim's browser) is refused, and each state is used once.
 *
 * The binding cookie is SameSite=Lax, not Strict: the provider sends the browser back with a cross-site
 * top-level GET, on which a Strict cookie would not be sent. It is scoped to the callback's path and lives ten
 * minutes.
 */

export const STATE_COOKIE = 'mirrorboard_oidc_state'
/** Set at a provider sign-in, cleared at sign-out: an expired session then goes back through the provider, not the sign-in page. */
export const SIGN_IN_HINT_COOKIE = 'mirrorboard_sign_in'

export interface ProviderInfo {
  /** "Sign in with <name>". */
  name: string
}

export class ProviderSignIn {
  readonly pending: PendingSignIns
  /** Several instances: reads what the others published now (server/ha/shared-identity.ts). */
  private refreshShared: (() => Promise<void>) | null = null

  constructor(
    readonly client: OidcClient,
    now: () => number = Date.now,
    /** Kept on disk when given one opened on the data dir (PendingSignIns.open): a restart keeps sign-ins under way. */
    pending?: PendingSignIns,
  ) {
    this.pending = pending ?? new PendingSignIns(now)
  }

  get info(): ProviderInfo {
    return { name: this.client.settings.providerName }
  }

  /** Where to send the browser and the cookie that binds the sign-in to it. */
  async start(next: string, secure: boolean): Promise<{ location: string; setCookie: string }> {
    const { url, pending } = await this.client.startSignIn(next)
    await this.pending.add(pending)
    const cookie = `${STATE_COOKIE}=${pending.state}; Path=/api/v1/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${PENDING_TTL_MS / 1000}${secure ? '; Secure' : ''}`
    return { location: url, setCookie: cookie }
  }

  /** Checks the callback against the sign-in this browser started and returns who signed in and where they were going. */
  /** `idToken` is for the session to keep server-side (the sign-out's `id_token_hint`): never a cookie or an answer. */
  async finish(params: URLSearchParams, browserState: string | undefined): Promise<{ identity: SignedInIdentity; idToken: string; next: string }> {
    const state = params.get('state')
    if (state === null || state === '') {
      throw new SignInRefused(params.get('error') !== null ? 'provider-error' : 'state', params.get('error') !== null ? `the identity provider answered ${params.get('error')?.slice(0, 100)}` : 'the sign-in came back without a state')
    }
    if (browserState === undefined || browserState !== state) throw new SignInRefused('state', 'this sign-in was not started in this browser (its state does not match); start again')
    let pending = this.pending.take(state)
    // Started at another instance a moment ago: its record may not have been read here yet.
    if (pending === null && this.refreshShared !== null) {
      await this.refreshShared()
      pending = this.pending.take(state)
    }
    if (pending === null) throw new SignInRefused('state', 'this sign-in is unknown, was already used or took more than ten minutes; start again')
    const { identity, idToken } = await this.client.finishSignIn(params, pending)
    return { identity, idToken, next: pending.next }
  }

  setSharedRefresh(refresh: () => Promise<void>): void {
    this.refreshShared = refresh
  }

  endSessionUrl(idToken?: string): Promise<string | null> {
    return this.client.endSessionUrl(idToken)
  }

  clearStateCookie(secure: boolean): string {
    return `${STATE_COOKIE}=; Path=/api/v1/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`
  }
}

/** The roles file, read and checked at start: a mistake stops the start with the file, its line and what is wrong. */
export async function loadRolesFile(file: string | undefined): Promise<RoleRule[]> {
  if (file === undefined) return []
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new Error(`MIRRORBOARD_ROLES_FILE: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  try {
    return parseRolesFile(text)
  } catch (error) {
    if (error instanceof RolesFileError) throw new Error(`MIRRORBOARD_ROLES_FILE ${file}, line ${error.line}: ${error.problem}`)
    throw error
  }
}

/**
 * The provider sign-in of this configuration, its client secret read from its file if so configured; with a data
 * dir, sign-ins under way survive a restart.
 */
export async function openProviderSignIn(config: OidcConfig, dataDir?: string): Promise<ProviderSignIn> {
  let clientSecret: string | undefined
  if (config.clientSecret !== null && 'file' in config.clientSecret) {
    try {
      clientSecret = (await readFile(config.clientSecret.file, 'utf8')).trim()
    } catch (error) {
      throw new Error(`MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: cannot read ${config.clientSecret.file}: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (clientSecret === '') throw new Error(`MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: ${config.clientSecret.file} is empty`)
  } else clientSecret = config.clientSecret?.value
  return new ProviderSignIn(
    new OidcClient({
      issuer: config.issuer,
      clientId: config.clientId,
      clientSecret,
      publicUrl: config.publicUrl,
      scopes: config.scopes,
      groupsClaim: config.groupsClaim,
      providerName: config.providerName,
    }),
    Date.now,
    dataDir === undefined ? undefined : await PendingSignIns.open(dataDir),
  )
}
