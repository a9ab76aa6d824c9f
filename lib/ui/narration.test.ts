import { describe, expect, it } from 'vitest'
import { splitNarration } from './narration'

describe('splitNarration', () => {
  it('finds the logs in the worked example narration and keeps the prose around them', () => {
    const parts = splitNarration('Source log: 0 DATA 4001 A=1 · 1 DATA 4001 B=2 · 2 DATA 4002 X=9. Both transactions are open.')
    expect(parts).toEqual([
      { kind: 'text', text: 'Source log: ' },
      {
        kind: 'log',
        records: [
          { offset: 0, type: 'DATA', producerId: 4001, content: 'A=1', text: '0 DATA 4001 A=1' },
          { offset: 1, type: 'DATA', producerId: 4001, content: 'B=2', text: '1 DATA 4001 B=2' },
          { offset: 2, type: 'DATA', producerId: 4002, content: 'X=9', text: '2 DATA 4002 X=9' },
        ],
      },
      { kind: 'text', text: '. Both transactions are open.' },
    ])
  })

  it('reads markers, a missing producer id and a log at the very end', () => {
    const parts = splitNarration("B's log: 3 ABORT 4001 · 4 ABORT 4002 · 5 MIRROR_PID_RESET —")
    expect(parts[1]).toEqual({
      kind: 'log',
      records: [
        { offset: 3, type: 'ABORT', producerId: 4001, content: null, text: '3 ABORT 4001' },
        { offset: 4, type: 'ABORT', producerId: 4002, content: null, text: '4 ABORT 4002' },
        { offset: 5, type: 'MIRROR_PID_RESET', producerId: null, content: null, text: '5 MIRROR_PID_RESET —' },
      ],
    })
    expect(parts).toHaveLength(2)
    expect(splitNarration('5 DATA — Z=10 · 6 COMMIT 4001, then more')[0]).toMatchObject({ kind: 'log', records: [{ content: 'Z=10', producerId: null }, { type: 'COMMIT' }] })
  })

  it('leaves prose alone: a single record or mere numbers are not a log', () => {
    expect(splitNarration('3 records are at risk (the COMMIT of 4001, Y=5, Z=10).')).toEqual([{ kind: 'text', text: '3 records are at risk (the COMMIT of 4001, Y=5, Z=10).' }])
    expect(splitNarration('Offset 3 DATA 4001 A=1 only.')).toHaveLength(1)
    expect(splitNarration('')).toEqual([])
  })
})
