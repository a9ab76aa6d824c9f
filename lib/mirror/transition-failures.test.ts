import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_CONFIG, FAILURE_MESSAGES, NON_RETRYABLE_ATTEMPT } from './constants'
import { createMirrorPartition, withChanges } from './partition'
import { transition, type TransitionContext } from './transition'

// The failure events' messages and retryability (KIP-1279.md §2.4), pinned where mutation testing found them loose.

const NOW = 1_764_400_000_000
const ctx: TransitionContext = { now: NOW, retryConfig: DEFAULT_RETRY_CONFIG, random: () => 0.5, mirrorSupportUncleanLeaderElection: false }
const mirroring = withChanges(createMirrorPartition(NOW - 1000), { state: 'MIRRORING', stateEpoch: 3, previousState: 'PREPARING' })

describe('failure events', () => {
  it('#36 tiered storage on the destination fails the partition for good, with the KIP message', () => {
    const { next, effects } = transition(mirroring, { type: 'tieredStorageDetected' }, ctx)
    expect(next).toMatchObject({ state: 'FAILED', retryAttempt: NON_RETRYABLE_ATTEMPT, error: FAILURE_MESSAGES.tieredStorageEnabled })
    expect(effects.map((effect) => effect.kind)).not.toContain('scheduleRetry')
  })

  it('#35 a changed source cluster id names both ids when known, and only the fact otherwise', () => {
    const both = transition(mirroring, { type: 'sourceClusterIdChanged', expectedClusterId: 'old-id', actualClusterId: 'new-id' }, ctx)
    expect(both.next).toMatchObject({ state: 'FAILED', retryAttempt: NON_RETRYABLE_ATTEMPT, error: `${FAILURE_MESSAGES.sourceClusterIdChanged} Expected old-id, found new-id.` })
    expect(transition(mirroring, { type: 'sourceClusterIdChanged', expectedClusterId: 'old-id' }, ctx).next.error).toBe(FAILURE_MESSAGES.sourceClusterIdChanged)
    expect(transition(mirroring, { type: 'sourceClusterIdChanged', actualClusterId: 'new-id' }, ctx).next.error).toBe(FAILURE_MESSAGES.sourceClusterIdChanged)
    expect(transition(mirroring, { type: 'sourceClusterIdChanged' }, ctx).next.error).toBe(FAILURE_MESSAGES.sourceClusterIdChanged)
  })

  it('#19 a mirror loop without detail says only that', () => {
    const preparing = withChanges(mirroring, { state: 'PREPARING' })
    expect(transition(preparing, { type: 'mirrorLoopDetected' }, ctx).next).toMatchObject({ state: 'FAILED', retryAttempt: 1, error: FAILURE_MESSAGES.mirrorLoop })
  })
})
