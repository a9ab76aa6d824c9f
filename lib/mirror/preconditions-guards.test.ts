import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_CONFIG } from './constants'
import { createMirrorPartition, withChanges, type MirrorPartitionValue } from './partition'
import { planCommand, type MirrorCommand, type PartitionStateRef } from './preconditions'
import { MIRROR_PARTITION_STATES, OPERATOR_EVENTS } from './states'
import { INITIAL_STOPPING_PROGRESS } from './stopping'
import { transition, type TransitionContext } from './transition'

/**
 * With the partition's value at hand (the engine's case), a command applies to a partition exactly when the
 * transition table would move it out of its state: the guards of the table's rules decide, not the state
 * alone (a FAILED partition may be paused only if it failed while MIRRORING, PAUSING or PAUSED).
 */

const ctx: TransitionContext = { now: 10_000, retryConfig: DEFAULT_RETRY_CONFIG, random: () => 0.5, mirrorSupportUncleanLeaderElection: false }

/** Values of every state, with every previous state, with and without STOPPING progress, healthy and failed for good. */
const VALUES: MirrorPartitionValue[] = MIRROR_PARTITION_STATES.flatMap((state) =>
  MIRROR_PARTITION_STATES.flatMap((previousState) =>
    [null, INITIAL_STOPPING_PROGRESS].flatMap((stopping) =>
      [0, -1].map((retryAttempt) => withChanges(createMirrorPartition(0), { state, previousState, stopping, retryAttempt, stateEpoch: 4, error: retryAttempt === 0 ? null : 'x' })),
    ),
  ),
)

const ref = (value: MirrorPartitionValue, partition = 0): PartitionStateRef => ({ topic: 't', partition, state: value.state, value })

describe('planCommand with partition values', () => {
  for (const command of ['stop', 'pause', 'resume', 'recover', 'start'] as const satisfies readonly MirrorCommand[]) {
    it(`${command} applies exactly where ${OPERATOR_EVENTS[command]} leaves the state (a stop also re-runs STOPPING)`, () => {
      for (const value of VALUES) {
        const result = transition(value, { type: OPERATOR_EVENTS[command] }, ctx)
        const moves = result.outcome === 'transitioned' && result.to !== value.state
        const rerun = command === 'stop' && value.state === 'STOPPING'
        const plan = planCommand(command, [ref(value)], { named: false, mirror: 'm' })
        const applies = plan.ok && plan.apply.length === 1
        expect(applies, `${command} ${value.state} after ${value.previousState}, stopping ${value.stopping !== null}, attempt ${value.retryAttempt}`).toBe(moves || rerun)
      }
    })
  }

  it('pauses a partition that failed while MIRRORING and refuses one that failed in PREPARING, also by name', () => {
    const failedWhileMirroring = withChanges(createMirrorPartition(0), { state: 'FAILED', previousState: 'MIRRORING', retryAttempt: 1, error: 'x' })
    const failedInPreparing = withChanges(failedWhileMirroring, { previousState: 'PREPARING' })
    const plan = planCommand('pause', [ref(failedWhileMirroring, 0), ref(failedInPreparing, 1)], { named: false, mirror: 'm' })
    expect(plan).toEqual({ ok: true, apply: [ref(failedWhileMirroring, 0)], skipped: [{ topic: 't', partition: 1, state: 'FAILED' }] })
    const named = planCommand('pause', [ref(failedWhileMirroring, 0), ref(failedInPreparing, 1)], { named: true, mirror: 'm' })
    expect(named.ok ? named : named.refusal.partitions).toEqual([{ topic: 't', partition: 1, state: 'FAILED' }])
  })
})
