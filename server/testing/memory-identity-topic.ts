import 'server-only'
import type { IdentityReplica, SharedIdentityStore } from '@/server/http/identity-replica'

/**
 * @internal A fake of the shared identity topic (server/ha/shared-identity.ts) for testing the stores above it:
 * one ordered log of `<prefix>/<id>` records, each store applying what it has not read yet when told to (as an
 * instance's next read of the topic would).
 */
export class MemoryIdentityTopic {
  readonly records: Array<{ key: string; value: unknown }> = []
  private readonly readUpTo = new Map<SharedIdentityStore, number>()

  attach(store: SharedIdentityStore): void {
    const replica: IdentityReplica = {
      put: async (id, value) => void this.records.push({ key: `${store.sharedPrefix}/${id}`, value: structuredClone(value) }),
      remove: async (id) => void this.records.push({ key: `${store.sharedPrefix}/${id}`, value: null }),
    }
    store.attachReplica(replica)
    this.readUpTo.set(store, 0)
  }

  /** The records `store` has not read yet, applied in order. */
  deliver(store: SharedIdentityStore): void {
    const from = this.readUpTo.get(store) ?? 0
    for (const { key, value } of this.records.slice(from)) {
      const slash = key.indexOf('/')
      if (key.slice(0, slash) === store.sharedPrefix) store.applyShared(key.slice(slash + 1), value)
    }
    this.readUpTo.set(store, this.records.length)
  }
}
