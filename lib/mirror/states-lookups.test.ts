import { describe, expect, it } from 'vitest'
import { MirrorError } from './errors'
import { EVENT_TABLE, isMirrorEventType, MIRROR_EVENT_TYPES, mirrorPartitionStateFromCode, parseMirrorPartitionState, possibleTargets, rulesFor } from './states'

/** The lookups of states.ts that read outside input: what they accept, and what their refusals say. */

function refusalOf(action: () => unknown): { code: string; message: string } | null {
  try {
    action()
    return null
  } catch (error) {
    return error instanceof MirrorError ? { code: error.code, message: error.message } : { code: 'not a MirrorError', message: String(error) }
  }
}

describe('states.ts lookups', () => {
  it('isMirrorEventType takes the event names of the table and nothing else', () => {
    for (const type of MIRROR_EVENT_TYPES) expect(isMirrorEventType(type), type).toBe(true)
    expect(['nope', 'MIRRORING', '', 'stoprequested', 'constructor', 3, null, undefined, { type: 'stopRequested' }].map(isMirrorEventType)).toEqual([false, false, false, false, false, false, false, false, false])
  })

  it('names the text or code it could not read in its VALIDATION_FAILED refusal', () => {
    expect(refusalOf(() => parseMirrorPartitionState(' running '))).toEqual({ code: 'VALIDATION_FAILED', message: 'unknown mirror partition state " running "' })
    expect(refusalOf(() => mirrorPartitionStateFromCode(42))).toEqual({ code: 'VALIDATION_FAILED', message: 'unknown mirror partition state code 42' })
  })

  it('possibleTargets of a stay rule is the state itself (the graph draws it as a self-loop)', () => {
    const stay = rulesFor('PREPARING', 'lastMirrorPositionFound')
    expect(EVENT_TABLE.PREPARING.lastMirrorPositionFound).toEqual({ stay: 'planTruncation' })
    expect(stay.flatMap((rule) => possibleTargets('PREPARING', rule))).toEqual(['PREPARING'])
  })
})
