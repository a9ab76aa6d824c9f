import { describe, expect, it } from 'vitest'
import { MIRROR_EVENT_TYPES } from '../mirror/states'
import { mirrorTimeline } from '../overview/mirror-timeline'
import { EVENT_WORDS, eventWords } from './event-words'

describe('eventWords', () => {
  it('says a reason that is one raw name in words', () => {
    expect(eventWords('sourceTopicDeleted')).toBe('source topic deleted')
    expect(eventWords('retryDue')).toBe('retry due')
    expect(eventWords('failed')).toBe('failed')
  })

  it('replaces the raw names inside a sentence and keeps the rest', () => {
    expect(eventWords('fetchFromSource failed after uncleanLeaderElection')).toBe('fetchFromSource failed after unclean leader election')
    expect(eventWords('lookUpLastMirrorPosition failed')).toBe('looking up the last mirror position failed')
  })

  it('says what a truncation did: nothing removed reads as where mirroring starts, never as a cut', () => {
    expect(eventWords('truncated to 0 (0 records removed, fromScratch)')).toBe('started from scratch: nothing removed, mirroring from offset 0')
    expect(eventWords('truncated to 40 (0 records removed, fromScratch)')).toBe('started from scratch: nothing removed, mirroring from offset 40')
    expect(eventWords('truncated to 7 (3 records removed, uncleanLeaderElection)')).toBe('3 records removed (unclean leader election), log cut back to offset 7')
    expect(eventWords('truncated to 12000 (1 record removed, failback)')).toBe('1 record removed (failback), log cut back to offset 12,000')
  })

  it('leaves plain English and names it does not know as they are', () => {
    expect(eventWords('failover sequence finished')).toBe('failover sequence finished')
    expect(eventWords('we truncate the log')).toBe('we truncate the log')
    expect(eventWords('another writer at stateEpoch 4')).toBe('another writer at stateEpoch 4')
    expect(eventWords('toString')).toBe('toString')
  })

  it('has words for every event of the state machine, none of them camelCase', () => {
    for (const type of MIRROR_EVENT_TYPES) expect(eventWords(type), type).not.toMatch(/[a-z][A-Z]/)
    for (const words of Object.values(EVENT_WORDS)) expect(words).not.toMatch(/[a-z][A-Z]/)
  })

  it('reads a mirror timeline entry built from the engine’s reasons as words', () => {
    const [broke] = mirrorTimeline([
      { topic: 'orders', partition: 0, transitions: [{ from: 'MIRRORING', to: 'FAILED', at: 1_000, reason: 'sourceTopicDeleted' }] },
      { topic: 'orders', partition: 1, transitions: [{ from: 'MIRRORING', to: 'FAILED', at: 1_500, reason: 'sourceTopicDeleted' }] },
    ])
    expect(broke?.partitions).toBe(2)
    expect(eventWords(broke!.reason)).toBe('source topic deleted')
  })
})
