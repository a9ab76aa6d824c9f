import 'server-only'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { FailoverPlan, MirrorPartitionState } from '@/lib/api/mirrors'
import { FailoverType, OperationStatus, StoppingStep, SwitchoverProgress } from '@/lib/api/operations'
import { Role } from '@/lib/api/session'
import { fsyncDirectory, writeFileDurablyAsync } from '@/server/util/durable-file'
import { OPERATION_KINDS } from './operation-kinds'

/**
 * The durable record of every operation (API.md "Operations": persisted before its 202, kept after it
 * finished). One file per operation, `<dir>/<id>.json`, replaced whole and crash-safely (temp file, fsync,
 * rename, fsync of the directory: server/util/durable-file.ts), so a file holds either the previous record
 * or the new one, never a mix.
 *
 * An operation is written three times at most in its life: when it is accepted (plan, partitions, who and
 * when: before the caller hears 202), when a restart resumes it, and when it finishes (its outcome, with
 * each partition's final step, state, error and time). Progress in between is not written here: every
 * partition persists its own STOPPING progress in `__mirror_state` before acting, and the operation is
 * rebuilt from those states after a crash (operation-progress.ts). A 10,000-partition failover therefore
 * costs two writes of its record, not one fsync per partition step.
 *
 * With instances sharing the work (issue #40), each write goes to the shared operations too
 * (SharedOperations, below), so the instance that adopts the mirror resumes the operation; the file stays this
 * instance's cache. A shared write that fails is logged and does not fail the operation: the file holds it.
 */

export const STORED_OPERATION_VERSION = 1

const StoredOperationPartition = z.object({
  topic: z.string(),
  partition: z.number().int().nonnegative(),
  /** The partition's stateEpoch when the operation was accepted: unchanged means the stop never reached it. */
  acceptedStateEpoch: z.number().int(),
  step: StoppingStep.nullable(),
  state: MirrorPartitionState,
  error: z.string().nullable(),
  finishedAt: z.number().int().nullable(),
})

export const StoredOperation = z.object({
  version: z.literal(STORED_OPERATION_VERSION),
  /** Acceptance order, across restarts: lists are newest first even when two share a millisecond. */
  sequence: z.number().int().nonnegative(),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  kind: z.enum(OPERATION_KINDS),
  mirror: z.string(),
  status: OperationStatus,
  startedAt: z.number().int(),
  finishedAt: z.number().int().nullable(),
  // actorName: the person's name and address when they signed in through the identity provider.
  requestedBy: z.object({ actor: z.string(), actorName: z.string().optional(), role: Role.nullable() }).nullable(),
  /** Absent in records written before gates could be forced. */
  forcedGates: z.array(z.string()).optional(),
  /** Absent in records written before failover types existed (unplanned). */
  type: FailoverType.optional(),
  /** A planned switchover's phase and figures: written at every phase change, so a restart resumes the phase. */
  switchover: SwitchoverProgress.optional(),
  resumedAt: z.array(z.number().int()),
  plan: FailoverPlan,
  partitions: z.array(StoredOperationPartition),
})
export type StoredOperation = z.infer<typeof StoredOperation>

export interface RetentionPolicy {
  /** The newest this many operations are always kept. */
  keepLatest: number
  /** Operations that started less than this long ago are kept too... */
  keepForMs: number
  /** ...up to this many in all, so a burst cannot fill the disk. */
  maxOperations: number
}

/** API.md: at least the last 1,000 operations or 30 days of them, whichever is more. */
export const DEFAULT_RETENTION: RetentionPolicy = { keepLatest: 1_000, keepForMs: 30 * 24 * 60 * 60 * 1000, maxOperations: 10_000 }

/**
 * Ids of the operations `policy` lets go. A running operation is never one of them: it is a promise still
 * being kept. `operations` is newest first.
 */
export function expiredOperations(
  operations: ReadonlyArray<Pick<StoredOperation, 'id' | 'status' | 'startedAt'>>,
  now: number,
  policy: RetentionPolicy,
): string[] {
  const expired: string[] = []
  let kept = 0
  for (const operation of operations) {
    const keep =
      operation.status === 'running' ||
      kept < policy.keepLatest ||
      (now - operation.startedAt < policy.keepForMs && kept < policy.maxOperations)
    if (keep) kept += 1
    else expired.push(operation.id)
  }
  return expired
}

export interface OperationStoreRecovery {
  operations: number
  /** Files that could not be read as an operation record; left in place for a person to look at. */
  damagedFiles: string[]
}

/**
 * Operations every instance of a group can read (issue #40, docs/high-availability.md), behind a port so the engine
 * knows nothing of Kafka: with MIRRORBOARD_CONTROL_BOOTSTRAP it is the control cluster's compacted `<group>-operations`
 * topic (server/ha/shared-operations.ts), one record per operation keyed by its id. The operation store
 * (below) writes each record here as well as to its file, at the same durable steps, so the instance that
 * adopts a mirror finds the operations a dead owner was running and resumes them as a restart would
 * (operation-tracker.ts `adopt`). Without a control cluster there is none: the data directory alone keeps operations.
 */
export interface SharedOperations {
  /** Writes `record` where every instance reads it; resolves once it is durable there. */
  save(record: StoredOperation): Promise<void>
  /** Removes the records of `ids` (history past its retention). */
  remove(ids: readonly string[]): Promise<void>
  /** Every record of `mirror`, read to the end of what has been written by any instance. */
  ofMirror(mirror: string): Promise<StoredOperation[]>
  /** This instance adopts `mirror`: the previous owner's later writes of its operations are refused (fenced). */
  claim?(mirror: string): Promise<void>
  /** The record of `id` as this instance last read it; null when it has none. */
  find(id: string): StoredOperation | null
  /** Every record as this instance last read it. */
  all(): StoredOperation[]
}

export interface OperationStoreOptions {
  onDamagedFile?: (info: { file: string; reason: string }) => void
  /** Where every instance of the group reads operations (issue #40); absent for one instance alone. */
  shared?: SharedOperations
  /** A write of the shared operations that failed (the local file has the record). */
  onSharedWriteFailed?: (info: { operation: string; error: string }) => void
}

const RECORD_SUFFIX = '.json'

export class OperationStore {
  /** Writes of one operation run one after another, each with the record as it was when asked. */
  private readonly writes = new Map<string, Promise<void>>()

  private constructor(
    private readonly dir: string | null,
    /** What the directory held when opened, oldest first (by sequence). */
    readonly loaded: readonly StoredOperation[],
    readonly recovery: OperationStoreRecovery,
    private readonly options: OperationStoreOptions = {},
  ) {}

  /** Operations kept in memory only, lost with the process (engines built without a data directory), and shared when given. */
  static inMemory(options: Pick<OperationStoreOptions, 'shared' | 'onSharedWriteFailed'> = {}): OperationStore {
    return new OperationStore(null, [], { operations: 0, damagedFiles: [] }, options)
  }

  /** The operations every instance of the group reads; null for one instance alone. */
  get shared(): SharedOperations | null {
    return this.options.shared ?? null
  }

  /**
   * Reads every record of `dir`. A temp file left by a crash is removed (its rename never happened, so the
   * record it was replacing is whole); a damaged record is reported and skipped, never fatal.
   */
  static async open(dir: string, options: OperationStoreOptions = {}): Promise<OperationStore> {
    await mkdir(dir, { recursive: true })
    const loaded: StoredOperation[] = []
    const damagedFiles: string[] = []
    for (const name of (await readdir(dir)).sort()) {
      const file = path.join(dir, name)
      if (name.endsWith('.tmp')) {
        await rm(file, { force: true })
        continue
      }
      if (!name.endsWith(RECORD_SUFFIX)) continue
      const reason = await readRecord(file).then(
        (record) => {
          if (`${record.id}${RECORD_SUFFIX}` !== name) return `holds operation ${record.id}`
          loaded.push(record)
          return null
        },
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      )
      if (reason !== null) {
        damagedFiles.push(name)
        options.onDamagedFile?.({ file, reason })
      }
    }
    loaded.sort((a, b) => a.sequence - b.sequence)
    return new OperationStore(dir, loaded, { operations: loaded.length, damagedFiles }, options)
  }

  /**
   * Makes `record` durable; resolves once it is on disk. The record is serialised now, so later changes
   * of the caller's object are not written by this call.
   */
  save(record: StoredOperation): Promise<void> {
    const shared = this.shareWrite(record.id, (operations) => operations.save(record))
    if (this.dir === null) return shared
    const file = path.join(this.dir, `${record.id}${RECORD_SUFFIX}`)
    const text = `${JSON.stringify(record)}\n`
    const previous = this.writes.get(record.id) ?? Promise.resolve()
    const write = previous.catch(() => undefined).then(() => writeFileDurablyAsync(file, text))
    this.track(record.id, write)
    return Promise.all([write, shared]).then(() => undefined)
  }

  /** The same write on the shared operations, in the order asked; a failure is reported, never thrown. */
  private shareWrite(id: string, write: (shared: SharedOperations) => Promise<void>): Promise<void> {
    const shared = this.options.shared
    if (shared === undefined) return Promise.resolve()
    const key = `shared:${id}`
    const previous = this.writes.get(key) ?? Promise.resolve()
    const done = previous
      .catch(() => undefined)
      .then(() => write(shared))
      .catch((error: unknown) => this.options.onSharedWriteFailed?.({ operation: id, error: error instanceof Error ? error.message : String(error) }))
    this.track(key, done)
    return done
  }

  /** Deletes the records of `ids` (history past its retention). */
  async remove(ids: readonly string[]): Promise<void> {
    const dir = this.dir
    if (ids.length > 0) await this.shareWrite(ids.join(','), (shared) => shared.remove(ids))
    if (dir === null || ids.length === 0) return
    await Promise.all(
      ids.map((id) => {
        const previous = this.writes.get(id) ?? Promise.resolve()
        const removal = previous.catch(() => undefined).then(() => rm(path.join(dir, `${id}${RECORD_SUFFIX}`), { force: true }))
        this.track(id, removal)
        return removal
      }),
    )
    // Not needed for correctness (a record that comes back after a crash is only history kept longer),
    // but it keeps the directory's state what the caller was told.
    fsyncDirectory(dir)
  }

  /** Resolves once every write asked for so far has ended. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()].map((write) => write.catch(() => undefined)))
  }

  private track(id: string, write: Promise<void>): void {
    this.writes.set(id, write)
    const forget = () => {
      if (this.writes.get(id) === write) this.writes.delete(id)
    }
    write.then(forget, forget)
  }
}

async function readRecord(file: string): Promise<StoredOperation> {
  const text = await readFile(file, 'utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  const parsed = StoredOperation.safeParse(json)
  if (!parsed.success) throw new Error(`not an operation record: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return parsed.data
}
