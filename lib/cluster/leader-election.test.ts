import { describe, expect, it } from 'vitest'
import { chooseLeader } from './leader-election'

const alive = (...brokers: number[]) => (replica: number) => brokers.includes(replica)

describe('chooseLeader', () => {
  it('elects the first alive ISR replica in assignment order and keeps the ISR', () => {
    expect(chooseLeader({ replicas: [3, 1, 2], isr: [1, 2, 3], isAlive: alive(1, 2), uncleanElectionEnabled: false })).toEqual({ kind: 'clean', leader: 1, isr: [1, 2, 3] })
  })

  it('prefers a clean leader even when unclean election is allowed', () => {
    expect(chooseLeader({ replicas: [1, 2, 3], isr: [2], isAlive: alive(1, 2, 3), uncleanElectionEnabled: true })).toEqual({ kind: 'clean', leader: 2, isr: [2] })
  })

  it('never elects an out-of-sync replica unless the topic allows unclean election', () => {
    expect(chooseLeader({ replicas: [1, 2, 3], isr: [1], isAlive: alive(2, 3), uncleanElectionEnabled: false })).toEqual({ kind: 'offline' })
  })

  it('elects the first alive replica uncleanly, with an ISR of itself alone, when allowed', () => {
    expect(chooseLeader({ replicas: [1, 2, 3], isr: [1], isAlive: alive(3, 2), uncleanElectionEnabled: true })).toEqual({ kind: 'unclean', leader: 2, isr: [2] })
  })

  it('is offline when no replica is alive', () => {
    expect(chooseLeader({ replicas: [1, 2], isr: [1, 2], isAlive: alive(), uncleanElectionEnabled: true })).toEqual({ kind: 'offline' })
  })

  it('does not share the ISR array it was given', () => {
    const isr = [1, 2]
    const choice = chooseLeader({ replicas: [1, 2], isr, isAlive: alive(1), uncleanElectionEnabled: false })
    expect(choice.kind === 'clean' && choice.isr !== isr).toBe(true)
  })
})
