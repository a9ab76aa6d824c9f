import 'server-only'
import { decodeKey, encodeKey, type StateRecordKey } from '@/lib/mirror/mirror-state-records'
import type { StateWriteFence } from '@/lib/mirror/state-fencing'
import { ClusterError, isClusterError, type FencedMirrorStateEntry, type MirrorHost, type MirrorStateAppendEntry } from '@/server/cluster/ports'

/**
 * The destination's `__mirror_state` compacted topic, read and written through MirrorHost, in the record
 * format of `lib/mirror/mirror-state-records.ts` (the clusters read it back too, to answer which mirrors they
 * host). Replay keeps the last value per key, as log compaction would.
 */
export interface StateRecordWrite {
  key: StateRecordKey
  /** JSON-serialisable value; null writes a tombstone. */
  value: unknown
  /** Partition-state writes name the stateEpoch they expect and their writer's leader epoch (KIP-1279.md §5.3). */
  fence?: StateWriteFence
}

/** Combined state writes per append; a single write larger than this still goes alone. */
const MAX_APPEND_BYTES = 512 * 1024

interface PendingWrite {
  entries: MirrorStateAppendEntry[]
  /** The entries' size as the append limit counts it. */
  bytes: number
  resolve: () => void
  reject: (error: unknown) => void
}

function entrySize(entry: MirrorStateAppendEntry): number {
  return entry.key.length + (entry.value?.length ?? 0) + 32
}

export class MirrorStateStore {
  private readonly pending: PendingWrite[] = []
  private flushing = false

  constructor(private readonly host: MirrorHost) {}

  /**
   * Durable once resolved: the engine runs a transition's effects only after this. Writes that arrive
   * while an append is in flight are combined into the next one, so a failover of a thousand partitions
   * costs a few dozen fsyncs, not thousands; each caller still waits for its own records to be durable.
   */
  write(records: StateRecordWrite[]): Promise<void> {
    if (records.length === 0) return Promise.resolve()
    const entries: MirrorStateAppendEntry[] = records.map(({ key, value, fence }) => ({
      key: encodeKey(key),
      value: value === null ? null : JSON.stringify(value),
      ...(fence ? { fence } : {}),
    }))
    // A write larger than one append (the tombstones of a big mirror) goes as several pending writes.
    const chunks: Array<{ entries: MirrorStateAppendEntry[]; bytes: number }> = [{ entries: [], bytes: 0 }]
    for (const entry of entries) {
      const size = entrySize(entry)
      let chunk = chunks[chunks.length - 1]!
      if (chunk.bytes + size > MAX_APPEND_BYTES && chunk.entries.length > 0) chunks.push((chunk = { entries: [], bytes: 0 }))
      chunk.entries.push(entry)
      chunk.bytes += size
    }
    // One write is the usual case (a partition's transition): no Promise.all around its one promise.
    if (chunks.length === 1) return this.enqueue(chunks[0]!)
    return Promise.all(chunks.map((chunk) => this.enqueue(chunk))).then(() => undefined)
  }

  private enqueue({ entries, bytes }: { entries: MirrorStateAppendEntry[]; bytes: number }): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ entries, bytes, resolve, reject })
      this.flush()
    })
  }

  private flush(): void {
    if (this.flushing || this.pending.length === 0) return
    this.flushing = true
    // One append stays well under the log's 1 MiB message limit; the rest waits for the next flush.
    let bytes = 0
    let count = 0
    while (count < this.pending.length) {
      const size = this.pending[count]!.bytes
      if (count > 0 && bytes + size > MAX_APPEND_BYTES) break
      bytes += size
      count++
    }
    const batch = this.pending.splice(0, count)
    this.host
      .appendMirrorState(batch.flatMap((write) => write.entries))
      .then(
        () => batch.forEach((write) => write.resolve()),
        (error: unknown) => {
          // Some of the append was written (a host that writes each mirror's records apart, issue #40): those
          // writes are durable, the others fail with the error.
          const written = isClusterError(error) && Array.isArray(error.details?.written) ? new Set(error.details.written as string[]) : null
          if (written) {
            for (const write of batch) if (write.entries.every((entry) => written.has(entry.key))) write.resolve()
            else write.reject(error)
            return
          }
          const fenced = fencedEntriesOf(error)
          // Without the refused keys nothing tells the stale writes from the others: all of them fail.
          if (!fenced || fenced.length === 0) {
            batch.forEach((write) => write.reject(error))
            return
          }
          // A refused append wrote nothing: the stale writes fail with their own fencing, the others
          // (other partitions, combined into this append) go again in the next one.
          const byKey = new Map(fenced.map((entry) => [entry.key, entry]))
          const retry: PendingWrite[] = []
          for (const write of batch) {
            const own = write.entries.map((entry) => byKey.get(entry.key)).filter((entry) => entry !== undefined)
            if (own.length === 0) retry.push(write)
            else write.reject(new ClusterError(own[0]!.code, `stale __mirror_state write of ${own.map((entry) => entry.key).join(', ')}`, { details: { fenced: own } }))
          }
          this.pending.unshift(...retry)
        },
      )
      .finally(() => {
        this.flushing = false
        this.flush()
      })
  }

  /**
   * The stored value of one key, read from the log (ReadMirrorStates): what a fenced writer re-reads before
   * deciding again. Null when the key has none (never written, or tombstoned).
   */
  async read(key: StateRecordKey): Promise<unknown> {
    return (await this.replay()).get(encodeKey(key))?.value ?? null
  }

  /** Last value per key (tombstoned keys are left out), in the order keys were first written. */
  async replay(): Promise<Map<string, { key: StateRecordKey; value: unknown }>> {
    const latest = new Map<string, { key: StateRecordKey; value: unknown }>()
    for (const record of await this.host.readMirrorState()) {
      const key = decodeKey(record.key)
      // Keys this version does not know are left alone, so an older engine can read a newer log.
      if (!key) continue
      if (record.value === null) {
        latest.delete(record.key)
        continue
      }
      try {
        latest.set(record.key, { key, value: JSON.parse(record.value) as unknown })
      } catch {
        // The log's CRC protects what was written; an unreadable value is a bug of some other writer, and
        // must not keep every other mirror from starting. The key's earlier value (if any) stays.
        continue
      }
    }
    return latest
  }
}

/** The refused entries of a fenced append, or null when `error` is something else. */
export function fencedEntriesOf(error: unknown): FencedMirrorStateEntry[] | null {
  if (!isClusterError(error, 'FENCED_STATE_EPOCH') && !isClusterError(error, 'FENCED_LEADER_EPOCH')) return null
  const fenced = error.details?.fenced
  return Array.isArray(fenced) ? (fenced as FencedMirrorStateEntry[]) : []
}
