import { describe, expect, it } from 'vitest'
import { describeReplicaWait, replicaConvergence, type ReplicaLogState } from './replica-convergence'

const at = (brokerId: number, logEndOffset: number, latestEpoch: number): ReplicaLogState => ({ brokerId, online: true, logEndOffset, latestEpoch })
const offline = (brokerId: number): ReplicaLogState => ({ brokerId, online: false, logEndOffset: null, latestEpoch: null })
const unseen = (brokerId: number): ReplicaLogState => ({ brokerId, online: true, logEndOffset: null, latestEpoch: null })

describe('replicaConvergence (#38)', () => {
  it('converges once every replica ends where the leader ends, in its epoch', () => {
    expect(replicaConvergence(1, [at(1, 20, 0), at(2, 20, 0), at(3, 20, 0)])).toEqual({ converged: true, logEndOffset: 20, latestEpoch: 0 })
    expect(replicaConvergence(2, [at(2, 0, -1)])).toEqual({ converged: true, logEndOffset: 0, latestEpoch: -1 })
  })

  it('waits for a replica that is down, whatever the ISR says', () => {
    expect(replicaConvergence(1, [at(1, 20, 0), offline(2)])).toEqual({ converged: false, leaderKnown: true, waitingFor: [{ brokerId: 2, why: 'offline' }] })
  })

  it('waits for a replica still holding offsets past the truncation point, one behind, or one in another epoch', () => {
    const convergence = replicaConvergence(1, [at(1, 20, 0), at(2, 30, 0), at(3, 12, 0), at(4, 20, 3), unseen(5)])
    expect(convergence).toEqual({
      converged: false,
      leaderKnown: true,
      waitingFor: [
        { brokerId: 2, why: 'ahead' },
        { brokerId: 3, why: 'behind' },
        { brokerId: 4, why: 'otherEpoch' },
        { brokerId: 5, why: 'unknown' },
      ],
    })
    if (convergence.converged) throw new Error('unreachable')
    expect(describeReplicaWait(convergence)).toBe(
      'broker 2 still holding offsets past the truncation point; broker 3 behind the truncated log; broker 4 holding another epoch at the truncation point; broker 5 not visible',
    )
  })

  it('an epoch or an end offset missing alone is not known either', () => {
    expect(replicaConvergence(1, [at(1, 20, 0), { brokerId: 2, online: true, logEndOffset: 20, latestEpoch: null }])).toMatchObject({ waitingFor: [{ brokerId: 2, why: 'unknown' }] })
    expect(replicaConvergence(1, [at(1, 20, 0), { brokerId: 2, online: true, logEndOffset: null, latestEpoch: 0 }])).toMatchObject({ waitingFor: [{ brokerId: 2, why: 'unknown' }] })
  })

  it('converges nothing without a leader it can see', () => {
    const none = replicaConvergence(-1, [offline(1), at(2, 20, 0)])
    expect(none).toEqual({ converged: false, leaderKnown: false, waitingFor: [{ brokerId: -1, why: 'offline' }] })
    const down = replicaConvergence(1, [offline(1), at(2, 20, 0)])
    expect(down).toEqual({ converged: false, leaderKnown: false, waitingFor: [{ brokerId: 1, why: 'offline' }] })
    // A leader outside the assignment, or whose log the host cannot see.
    const missing = replicaConvergence(3, [at(1, 20, 0)])
    expect(missing).toEqual({ converged: false, leaderKnown: false, waitingFor: [{ brokerId: 3, why: 'unknown' }] })
    expect(replicaConvergence(1, [{ brokerId: 1, online: true, logEndOffset: 20, latestEpoch: null }])).toMatchObject({ converged: false, leaderKnown: false })
    expect(replicaConvergence(1, [{ brokerId: 1, online: true, logEndOffset: null, latestEpoch: 0 }])).toMatchObject({ converged: false, leaderKnown: false })
    for (const [convergence, text] of [
      [none, 'the partition has no leader'],
      [down, 'the leader (broker 1) offline'],
      [missing, 'the leader (broker 3) not visible'],
    ] as const) {
      if (convergence.converged) throw new Error('unreachable')
      expect(describeReplicaWait(convergence)).toBe(text)
    }
  })
})
