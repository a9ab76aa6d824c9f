import type { DrillPartition } from '@/lib/api/drills'
import type { DrillCheck } from '@/lib/drill/checks'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'
import type { GroupOffsets, MirrorStateAppendEntry, TopicPartition } from '@/server/cluster/ports'
import type { FailoverOperation } from '@/server/engine/types'
import type { LogCloseState } from '@/server/storage/types'

/**
 * The messages between a drill (sandbox-process.ts) and its sandbox's process (sandbox-child.ts), sent with the
 * `advanced` serialization (structured clone: maps and byte arrays as they are). One request at a time, each
 * answered once; `lag` and `log` are not answered. The
 * parent ends the process when the drill ends (its sandbox is removed next: nothing in it needs closing).
 */
export type ToChild =
  /** A drill took the process (a spare, forked before it): load the sandbox's modules; answered `ready`. */
  | { type: 'load' }
  | {
      type: 'failOver'
      dir: string
      name: string
      /** A copy from files: each log's state at the copy, for its first open (sandbox.ts openSandbox). */
      closeStates: ReadonlyMap<string, LogCloseState>
      state: MirrorStateAppendEntry[]
      groups: GroupOffsets[]
      drilled: TopicPartition[]
      mirror: string
      sourceCluster: string
      destinationCluster: string
      topics: string[]
      baselineLagMs: number
    }
  | { type: 'check'; drillId: string }
  /** Production's latest time lag, which the sandbox's work paces on (lib/drill/pacing.ts). */
  | { type: 'lag'; lagMs: number | null }

export type FromChild =
  /** The answer to `load`. */
  | { type: 'ready' }
  | { type: 'failedOver'; plan: FailoverPreflight; operation: FailoverOperation; refusedCalls: number; steps: StepTimes }
  | { type: 'checked'; checks: DrillCheck[]; markers: Map<string, DrillPartition['markers']>; steps: StepTimes }
  | { type: 'error'; message: string }
  | { type: 'log'; message: string; fields: Record<string, unknown> }

/**
 * Each step of a request in the sandbox's process, in order: its milliseconds and when it ended (epoch ms), and
 * the pauses it made for production's lag, its process's nice value as it ended (logged by the drill: where its time goes; the bench lays its probes
 * of production's lag over them).
 */
export type StepTimes = Array<{ step: string; ms: number; endedAt: number; pausedMs: number; pauses: number; nice: number }>
