/**
 * The one state change that is not a rule of EVENT_TABLE: after a fenced write (KIP-1279.md §5.3) the record
 * another writer stored in `__mirror_state` is authoritative, and the engine takes it as it is. The table cannot
 * hold it as a rule because its target is data (the stored state, possibly several valid transitions away from
 * what this engine last saw), yet it is named (`storedStateAdopted`) and, when the state moves, recorded as a
 * transition like any other, so every change of a partition's state shows in its history and on the stream.
 */
import type { MirrorPartitionValue } from './partition'
import type { MirrorEventType, MirrorPartitionState } from './states'

export const STORED_STATE_ADOPTED = 'storedStateAdopted' as const satisfies MirrorEventType

export type AdoptionResult =
  /** The stored record names another state: a transition from what the engine held to it. */
  | { readonly outcome: 'transitioned'; readonly from: MirrorPartitionState; readonly to: MirrorPartitionState; readonly next: MirrorPartitionValue; readonly reason: string }
  /** Same state, other details (a newer stateEpoch, failure details): the value is replaced, no transition. */
  | { readonly outcome: 'updated'; readonly next: MirrorPartitionValue }
  /** Same state and stateEpoch: what the engine held, as stored (details written under that epoch included). */
  | { readonly outcome: 'unchanged'; readonly next: MirrorPartitionValue }

export function adoptStoredState(held: MirrorPartitionValue, stored: MirrorPartitionValue): AdoptionResult {
  if (stored.state !== held.state) {
    return {
      outcome: 'transitioned',
      from: held.state,
      to: stored.state,
      next: stored,
      reason: `${STORED_STATE_ADOPTED}: another writer's record at stateEpoch ${stored.stateEpoch} (this engine held ${held.state} at stateEpoch ${held.stateEpoch})`,
    }
  }
  if (stored.stateEpoch !== held.stateEpoch) return { outcome: 'updated', next: stored }
  return { outcome: 'unchanged', next: stored }
}
