import type { DrillPartition } from '@/lib/api/drills'
import type { DrillCheck } from '@/lib/drill/checks'
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
  /**
   * A copy from files: some of its logs' states at the copy, for their first open (sandbox.ts openSandbox), sent
   * before `failOver` in messages of CLOSE_STATES_PER_MESSAGE; not answered.
   */
  | { type: 'closeStates'; entries: Array<[string, LogCloseState]> }
  | {
      type: 'failOver'
      dir: string
      name: string
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
  | {
      type: 'failedOver'
      status: FailoverOperation['status']
      finishedAt: number | null
      /** The partitions the failover left short of STOPPED, each `topic-partition STATE (error)`, in its order. */
      notStopped: string[]
      /** The preflight's transactions to abort, by partition (`topic\u0000partition`): only partitions with any. */
      plannedAborts: Array<[string, Array<{ producerId: number; firstOffset: number }>]>
      refusedCalls: number
      steps: StepTimes
    }
  | { type: 'checked'; checks: DrillCheck[]; markers: Map<string, DrillPartition['markers']>; steps: StepTimes }
  | { type: 'error'; message: string }
  | { type: 'log'; message: string; fields: Record<string, unknown> }

/**
 * Each step of a request in the sandbox's process, in order: its milliseconds and when it ended (epoch ms), and
 * the pauses it made for production's lag, its process's nice value as it ended (logged by the drill: where its time goes; the bench lays its probes
 * of production's lag over them).
 */
/**
 * Logs' close states a `closeStates` message carries. All 2,000 of a drill's in the `failOver` request were one
 * structured clone of 28–37 ms of the server's main thread (its index byte arrays, producer states, epochs; a CPU
 * profile of npm run bench -- drill, server/drills/README.md session 27); 200 a message, each sent in a turn of its own.
 */
export const CLOSE_STATES_PER_MESSAGE = 200

export type StepTimes = Array<{ step: string; ms: number; endedAt: number; pausedMs: number; pauses: number; nice: number }>
