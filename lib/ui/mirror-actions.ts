/**
 * Which of a mirror's actions apply in its current state, which one is the primary (the one thing an operator
 * most likely wants now), and why the others cannot apply. One primary per state: FAILED partitions → Recover,
 * every partition STOPPED (failed over) → Failback, nothing mirroring but paused partitions → Resume, mirroring →
 * Pause. An action that cannot apply stays on screen, disabled, with its reason, so the operator learns why
 * rather than wondering where it went (Pause and Resume were both enabled whatever the state).
 *
 * The states pause, resume and recover act on are the transition table's (COMMAND_PRECONDITIONS, as the dialogs
 * and the engine read them; a FAILED partition's pause is decided per partition by the server); a failover stops
 * anything not yet STOPPED, a failback follows a failover (STOPPED partitions).
 */
import { COMMAND_PRECONDITIONS } from '../mirror/preconditions'
import type { MirrorPartitionState } from '../mirror/states'

export type MirrorAction = 'pause' | 'resume' | 'recover' | 'failover' | 'failback'

export interface ActionState {
  readonly enabled: boolean
  /** Why it is disabled, in a sentence fragment ("nothing is paused"); null when enabled. */
  readonly reason: string | null
  readonly primary: boolean
}

export type MirrorActionStates = Readonly<Record<MirrorAction, ActionState>>

type Counts = Readonly<Partial<Record<MirrorPartitionState, number>>>

export function mirrorActionStates(counts: Counts): MirrorActionStates {
  const count = (state: MirrorPartitionState) => counts[state] ?? 0
  const applicable = (command: 'pause' | 'resume' | 'recover') => COMMAND_PRECONDITIONS[command].reduce((sum, state) => sum + count(state), 0)
  const total = Object.values(counts).reduce<number>((sum, value) => sum + (value ?? 0), 0)
  const failed = count('FAILED')
  const paused = count('PAUSED')
  const mirroring = count('MIRRORING')
  const stopped = count('STOPPED')
  const stopping = count('STOPPING')
  const notStopped = total - stopped - stopping
  const primary: MirrorAction | null =
    total === 0 ? null : failed > 0 ? 'recover' : stopping > 0 ? null : notStopped === 0 ? 'failback' : mirroring === 0 && paused > 0 ? 'resume' : mirroring > 0 ? 'pause' : null
  const state = (action: MirrorAction, reason: string | null): ActionState => ({ enabled: reason === null, reason, primary: reason === null && primary === action })
  const empty = total === 0 ? 'the mirror has no partitions yet' : null
  return {
    pause: state('pause', empty ?? (applicable('pause') === 0 ? (paused > 0 ? 'already paused' : 'nothing is mirroring') : null)),
    resume: state('resume', empty ?? (applicable('resume') === 0 ? (count('PAUSING') > 0 ? 'still pausing' : 'nothing is paused') : null)),
    recover: state('recover', empty ?? (applicable('recover') === 0 ? 'no partition has FAILED' : null)),
    failover: state('failover', empty ?? (notStopped === 0 ? 'already failed over: every partition is STOPPED' : null)),
    failback: state('failback', empty ?? (stopped === 0 ? (stopping > 0 ? 'the failover is still stopping partitions' : 'it follows a failover, and no partition is STOPPED') : null)),
  }
}
