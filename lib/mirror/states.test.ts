import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import { GUARDS } from './guards'
import { allowedEvents, EVENT_TABLE, failureSourceStates, GUARD_NAMES, isMirrorPartitionState, isValidTransition, MIRROR_EVENT_TYPES, MIRROR_PARTITION_STATE_CODES, MIRROR_PARTITION_STATE_SYNONYMS, MIRROR_PARTITION_STATES, mirrorPartitionStateFromCode, parseMirrorPartitionState, possibleTargets, RETRY_TARGETS, rulesFor, VALID_PREVIOUS_STATES, type MirrorPartitionState } from './states'
import { EVENT_METADATA, STATE_METADATA } from './state-metadata'

const S = MIRROR_PARTITION_STATES

describe('state names', () => {
  it('lists the ten KIP states', () => {
    expect(S).toEqual([
      'UNKNOWN',
      'PREPARING',
      'EPOCH_FENCING',
      'ULE_LOG_TRUNCATION',
      'MIRRORING',
      'PAUSING',
      'PAUSED',
      'STOPPING',
      'STOPPED',
      'FAILED',
    ])
  })

  it('parses LOG_ALIGNMENT as PREPARING and ULE_RECOVERY as ULE_LOG_TRUNCATION', () => {
    expect(parseMirrorPartitionState('LOG_ALIGNMENT')).toBe('PREPARING')
    expect(parseMirrorPartitionState('ULE_RECOVERY')).toBe('ULE_LOG_TRUNCATION')
  })

  it('parses names in any case and with surrounding blanks', () => {
    expect(parseMirrorPartitionState(' mirroring ')).toBe('MIRRORING')
    expect(parseMirrorPartitionState('log_alignment')).toBe('PREPARING')
  })

  it.each(['', 'RUNNING', 'constructor', 'toString', 'MIRRORING2'])('rejects %j with VALIDATION_FAILED', (text) => {
    expect(() => parseMirrorPartitionState(text)).toThrow(MirrorError)
    try {
      parseMirrorPartitionState(text)
    } catch (error) {
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED' })
    }
  })

  it('accepts only canonical names as states (synonyms are parsed, not stored)', () => {
    expect(isMirrorPartitionState('PREPARING')).toBe(true)
    expect(isMirrorPartitionState('LOG_ALIGNMENT')).toBe(false)
    expect(isMirrorPartitionState(3)).toBe(false)
  })

  it('round-trips every state through the prototype byte codes, which are distinct', () => {
    const codes = S.map((state) => MIRROR_PARTITION_STATE_CODES[state])
    expect(new Set(codes).size).toBe(S.length)
    for (const state of S) expect(mirrorPartitionStateFromCode(MIRROR_PARTITION_STATE_CODES[state])).toBe(state)
    expect(MIRROR_PARTITION_STATE_CODES.PREPARING).toBe(0)
    expect(MIRROR_PARTITION_STATE_CODES.UNKNOWN).toBe(-1)
    expect(() => mirrorPartitionStateFromCode(42)).toThrow(MirrorError)
  })
})

describe('valid transition table (DESIGN.md §1)', () => {
  const expectedPredecessors: Record<MirrorPartitionState, readonly MirrorPartitionState[]> = {
    UNKNOWN: [],
    PREPARING: ['UNKNOWN', 'STOPPED', 'FAILED'],
    EPOCH_FENCING: ['MIRRORING', 'FAILED'],
    ULE_LOG_TRUNCATION: ['MIRRORING', 'FAILED'],
    MIRRORING: ['PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION', 'PAUSED', 'FAILED'],
    PAUSING: ['MIRRORING', 'FAILED'],
    PAUSED: ['PAUSING', 'FAILED'],
    STOPPING: ['PREPARING', 'EPOCH_FENCING', 'ULE_LOG_TRUNCATION', 'MIRRORING', 'PAUSING', 'PAUSED', 'FAILED'],
    STOPPED: ['STOPPING'],
    FAILED: S,
  }

  it('#2 accepts exactly the transitions of DESIGN.md §1 (all 100 pairs checked)', () => {
    for (const from of S) {
      for (const to of S) {
        const expected = from === to || expectedPredecessors[to].includes(from)
        expect(isValidTransition(from, to), `${from} → ${to}`).toBe(expected)
      }
    }
  })

  it('#2 treats re-entering the current state as valid (a no-op)', () => {
    for (const state of S) expect(isValidTransition(state, state)).toBe(true)
  })

  it('#39 accepts a stop from FAILED, for disaster failover while the source is down', () => {
    expect(isValidTransition('FAILED', 'STOPPING')).toBe(true)
  })

  it('never lets FAILED skip STOPPING into STOPPED, nor enter UNKNOWN', () => {
    expect(isValidTransition('FAILED', 'STOPPED')).toBe(false)
    expect(isValidTransition('FAILED', 'UNKNOWN')).toBe(false)
  })

  it('keeps the 3P diagram edges the prototype does not allow out of the table', () => {
    expect(isValidTransition('PREPARING', 'EPOCH_FENCING')).toBe(false)
    expect(isValidTransition('EPOCH_FENCING', 'ULE_LOG_TRUNCATION')).toBe(false)
  })

  it('has a predecessor list for every state', () => {
    expect(Object.keys(VALID_PREVIOUS_STATES).sort()).toEqual([...S].sort())
  })
})

describe('event table', () => {
  it('leads every event, in every state, only to valid transitions', () => {
    for (const state of S) {
      for (const type of MIRROR_EVENT_TYPES) {
        for (const rule of rulesFor(state, type)) {
          for (const target of possibleTargets(state, rule)) {
            expect(isValidTransition(state, target), `${state} --${type}--> ${target}`).toBe(true)
          }
        }
      }
    }
  })

  it('covers every valid transition between two different states with at least one event', () => {
    for (const to of S) {
      for (const from of VALID_PREVIOUS_STATES[to]) {
        if (from === to) continue
        const causes = MIRROR_EVENT_TYPES.filter((type) =>
          rulesFor(from, type).some((rule) => possibleTargets(from, rule).includes(to)),
        )
        expect(causes.length, `${from} → ${to}`).toBeGreaterThan(0)
      }
    }
  })

  it('refers only to guards that guards.ts implements', () => {
    expect(Object.keys(GUARDS).sort()).toEqual([...GUARD_NAMES].sort())
    for (const state of S) {
      for (const type of MIRROR_EVENT_TYPES) {
        for (const rule of rulesFor(state, type)) {
          if (rule.when !== undefined) expect(GUARD_NAMES).toContain(rule.when)
          if (rule.unless !== undefined) expect(GUARD_NAMES).toContain(rule.unless)
        }
      }
    }
  })

  it('uses only known event names as keys', () => {
    for (const state of S) {
      for (const key of Object.keys(EVENT_TABLE[state])) expect(MIRROR_EVENT_TYPES).toContain(key)
    }
  })

  it('lets every state other than FAILED itself fail (FAILED is entered from any state)', () => {
    expect(failureSourceStates()).toEqual(S.filter((state) => state !== 'FAILED'))
  })

  it('returns to the state before FAILED on retry, starting over in PREPARING when there was none', () => {
    expect(RETRY_TARGETS.UNKNOWN).toBe('PREPARING')
    expect(RETRY_TARGETS.MIRRORING).toBe('MIRRORING')
    expect(RETRY_TARGETS.STOPPING).toBe('STOPPING')
    for (const state of S) expect(isValidTransition('FAILED', RETRY_TARGETS[state])).toBe(true)
  })

  it('does not match inherited property names as events', () => {
    expect(rulesFor('MIRRORING', 'constructor')).toEqual([])
    expect(rulesFor('MIRRORING', 'toString')).toEqual([])
    expect(rulesFor('MIRRORING', 'hasOwnProperty')).toEqual([])
  })

  it('sends a divergence to ULE_LOG_TRUNCATION when supported and to FAILED otherwise, in that order', () => {
    expect(rulesFor('MIRRORING', 'divergenceDetected')).toEqual([
      { to: 'ULE_LOG_TRUNCATION', when: 'isUncleanLeaderElectionSupported' },
      { to: 'FAILED' },
    ])
  })

  it('lets STOPPED only restart or stay stopped', () => {
    expect(allowedEvents('STOPPED')).toEqual(['startRequested', 'stopRequested', 'failed'])
  })
})

describe('UI metadata', () => {
  it('describes every state and every event', () => {
    expect(Object.keys(STATE_METADATA).sort()).toEqual([...S].sort())
    expect(Object.keys(EVENT_METADATA).sort()).toEqual([...MIRROR_EVENT_TYPES].sort())
  })

  it('flags STOPPED as the only terminal and writable state, FAILED as the only one needing attention', () => {
    expect(S.filter((state) => STATE_METADATA[state].terminal)).toEqual(['STOPPED'])
    expect(S.filter((state) => !STATE_METADATA[state].readOnly)).toEqual(['STOPPED'])
    expect(S.filter((state) => STATE_METADATA[state].attention)).toEqual(['FAILED'])
  })

  it('lists the KIP synonyms next to the states they name', () => {
    expect(STATE_METADATA.PREPARING.synonyms).toEqual(['LOG_ALIGNMENT'])
    expect(STATE_METADATA.ULE_LOG_TRUNCATION.synonyms).toEqual(['ULE_RECOVERY'])
  })

  it("names each state as the voted KIP does (the prototype's server-common enum, in its byte order)", () => {
    const byCode = [...S].sort((a, b) => MIRROR_PARTITION_STATE_CODES[a] - MIRROR_PARTITION_STATE_CODES[b]).map((state) => STATE_METADATA[state].kipName)
    expect(byCode).toEqual(['UNKNOWN', 'LOG_ALIGNMENT', 'EPOCH_FENCING', 'ULE_RECOVERY', 'MIRRORING', 'PAUSING', 'PAUSED', 'STOPPING', 'STOPPED', 'FAILED'])
    // Every voted name that is not ours is accepted where a state is named, and is exactly the synonyms' list.
    const differing = S.filter((state) => STATE_METADATA[state].kipName !== state)
    expect(Object.fromEntries(differing.map((state) => [STATE_METADATA[state].kipName, state]))).toEqual(MIRROR_PARTITION_STATE_SYNONYMS)
    for (const state of S) expect(parseMirrorPartitionState(STATE_METADATA[state].kipName.toLowerCase())).toBe(state)
  })
})
