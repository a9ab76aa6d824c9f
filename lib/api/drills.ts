import { z } from 'zod'
import { Name, NonNegativeInt, PartitionIndex, Timestamp } from './common'
import { EmulationNote } from './mirrors'
import { Role } from './session'

/**
 * Drills (API.md §"Round 3": `POST /mirrors/{m}/drills`, `GET /drills/{id}`): the failover of a mirror's
 * topics rehearsed on a copy of its destination taken at the mirrored point, while the mirror keeps mirroring;
 * checked and measured. `DrillStatus` is what lib/ui/status-style.ts gives a look.
 */
export const DrillStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled'])
export type DrillStatus = z.infer<typeof DrillStatus>

/** Where a running drill is: taking the copy, failing over on it, checking it, removing it; `done` once ended. */
export const DrillPhase = z.enum(['copying', 'failingOver', 'checking', 'cleaningUp', 'done'])
export type DrillPhase = z.infer<typeof DrillPhase>

export const DrillCheckName = z.enum(['markers-as-planned', 'read-committed', 'group-offsets', 'idempotent-producer', 'transactional-producer', 'source-untouched', 'production-kept-mirroring'])

export const DrillCheck = z.object({ name: DrillCheckName, ok: z.boolean(), detail: z.string() })
export type DrillCheck = z.infer<typeof DrillCheck>

export const DrillMarker = z.object({ offset: NonNegativeInt, type: z.enum(['ABORT', 'COMMIT', 'MIRROR_PID_RESET']), producerId: NonNegativeInt.nullable() })

export const DrillPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  /** The destination's log end when the copy was taken: the copy holds [log start, mirroredOffset). */
  mirroredOffset: NonNegativeInt,
  /** The markers the failover wrote on the copy, read back from its log. */
  markers: z.array(DrillMarker),
  /** What the preflight of the copy said it would abort (producer ids, by first offset). */
  plannedAborts: z.array(z.object({ producerId: NonNegativeInt, firstOffset: NonNegativeInt })),
  /** The source's high watermark when the copy was taken (null when it could not be read). */
  sourceHighWatermark: NonNegativeInt.nullable(),
})
export type DrillPartition = z.infer<typeof DrillPartition>

export const Drill = z.object({
  id: z.string(),
  mirror: Name,
  status: DrillStatus,
  phase: DrillPhase,
  /** The phase a drill that did not succeed stopped in (its failure, a failed check, or the cancel); null otherwise. */
  stoppedIn: DrillPhase.nullable(),
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  /** Drill start → every partition of the copy writable (its failover finished). */
  rtoMs: NonNegativeInt.nullable(),
  /** What a failover at that moment would have lost: records the source held beyond the copy, and the age of the oldest. */
  rpo: z.object({ records: NonNegativeInt.nullable(), seconds: z.number().nonnegative().nullable() }),
  checks: z.array(DrillCheck),
  partitions: z.array(DrillPartition),
  topics: z.array(Name),
  /** Partitions of those topics not drilled (not MIRRORING when the copy was taken), with their state. */
  skipped: z.array(z.object({ topic: Name, partition: PartitionIndex, state: z.string() })),
  sandbox: z.object({
    /** The sandbox cluster's name (after the drill); it exists only while the drill runs. */
    name: z.string(),
    /** files: segments copied or hard-linked from the destination's disk; brokerLog: batches read from a Kafka destination. */
    copiedFrom: z.enum(['files', 'brokerLog']),
    removed: z.boolean(),
    filesLinked: NonNegativeInt,
    bytesCopied: NonNegativeInt,
    /** What differs from a drill on the destination's own files (a Kafka destination), as the adapter's notes do. */
    emulation: z.array(EmulationNote),
  }),
  /** The production mirror while the drill ran, sampled every 250 ms. */
  productionLag: z
    .object({
      samples: NonNegativeInt,
      maxOffsetLag: NonNegativeInt,
      p99OffsetLag: NonNegativeInt,
      maxTimeLagMs: NonNegativeInt,
      p99TimeLagMs: NonNegativeInt,
    })
    .nullable(),
  // actorName: the person's name and address when they signed in through the identity provider.
  requestedBy: z.object({ actor: z.string(), actorName: z.string().optional(), role: Role.nullable() }).nullable(),
  /** Why the drill failed before its checks could say (a copy that could not be taken...); null otherwise. */
  error: z.string().nullable(),
})
export type Drill = z.infer<typeof Drill>

export const StartDrillRequest = z.strictObject({
  topics: z.array(Name).min(1).max(1000).optional().describe("Only these topics of the mirror (all when absent); each must be one of the mirror's topics."),
})
export type StartDrillRequest = z.infer<typeof StartDrillRequest>

export const DrillAccepted = z.object({ drill: z.string() })

/** A mirror's drills, newest first, with how recently one succeeded against its `drillIntervalDays` objective. */
export const DrillList = z.object({
  drills: z.array(Drill),
  lastSucceededAt: Timestamp.nullable(),
  intervalDays: z.number().positive().nullable(),
  overdue: z.boolean().nullable(),
})
export type DrillList = z.infer<typeof DrillList>

export const DrillParams = z.object({ id: z.string().regex(/^d-[a-z0-9]{1,32}$/, 'must be a drill id (d-…)') })
