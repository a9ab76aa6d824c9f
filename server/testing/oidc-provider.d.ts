/**
 * The part of `oidc-provider` 9 (which ships no types) the tests' identity provider uses
 * (server/testing/oidc-test-provider.ts). `@types/oidc-provider` would replace this file.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface Grant {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  export interface KoaContextWithOIDC {
    path: string
    method: string
    status: number
    body: unknown
    type: string
    get(field: string): string
    oidc: {
      provider: Provider
      client?: { clientId: string }
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined }
      result?: { consent?: { grantId?: string } }
      body?: Record<string, unknown>
    }
  }

  export interface Account {
    accountId: string
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>
  }

  export interface Configuration {
    clients: Array<Record<string, unknown>>
    jwks: { keys: unknown[] }
    cookies: { keys: string[] }
    claims: Record<string, string[]>
    conformIdTokenClaims: boolean
    ttl: Record<string, number>
    pkce: { required: () => boolean }
    features: {
      devInteractions: { enabled: boolean }
      rpInitiatedLogout: { enabled: boolean; logoutSource(ctx: KoaContextWithOIDC, form: string): void | Promise<void> }
    }
    interactions: { url(ctx: KoaContextWithOIDC, interaction: { uid: string }): string }
    loadExistingGrant(ctx: KoaContextWithOIDC): Promise<Grant | undefined>
    findAccount(ctx: KoaContextWithOIDC, id: string): Account | undefined | Promise<Account | undefined>
    renderError(ctx: KoaContextWithOIDC, out: { error?: unknown; error_description?: unknown }, error: unknown): void | Promise<void>
  }

  export class Provider {
    constructor(issuer: string, configuration: Configuration)
    readonly Grant: {
      new (properties: { clientId: string; accountId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
    use(middleware: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>): void
    callback(): (request: IncomingMessage, response: ServerResponse) => void
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<{ uid: string }>
    interactionFinished(request: IncomingMessage, response: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>
  }
}
