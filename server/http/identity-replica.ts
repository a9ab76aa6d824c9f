import 'server-only'

/**
 * How the sign-in state an instance keeps (browser sessions, named API tokens, sign-ins at the provider) reaches
 * the other instances of a group (server/ha/shared-identity.ts), so a browser or the command line may talk to any
 * of them behind a load balancer. The stores stay the same without one: a single instance shares nothing.
 */
export interface IdentityReplica {
  /** Publishes the entry under the store's id; never throws (an instance that cannot share still works alone). */
  put(id: string, value: unknown): Promise<void>
  /** Publishes the entry's end (a tombstone); never throws. */
  remove(id: string): Promise<void>
}

/** A store whose entries are shared: what another instance published is applied here, without publishing it again. */
export interface SharedIdentityStore {
  /** The record keys' prefix on the shared topic (`session`, `api-token`, `pending-sign-in`). */
  readonly sharedPrefix: string
  attachReplica(replica: IdentityReplica): void
  /** An entry another instance published (null: it ended). A value that does not parse is ignored. */
  applyShared(id: string, value: unknown): void
  /** What this instance holds, for publishing what the shared topic does not have yet. */
  sharedEntries(): Array<[string, unknown]>
}
