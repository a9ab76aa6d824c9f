import { describe, expect, it } from 'vitest'
import type { RecordEntry } from '../api/records'
import {
  alignLogs,
  FIRST_SCREEN_OFFSETS,
  clampWindow,
  describeCell,
  firstScreenRead,
  firstWindow,
  initialWindow,
  lastWindow,
  logBounds,
  mirroredPosition,
  nextWindow,
  previousWindow,
  recordContent,
  recordsAtRisk,
  recordsRead,
  resolveWindow,
  storyFocus,
  openingColumn,
  windowAround,
  type LogExtent,
} from './log-strip'

function record(offset: number, type: RecordEntry['type'], producerId: number | null, content?: [string, string], leaderEpoch = 0): RecordEntry {
  return {
    offset,
    type,
    producerId,
    producerEpoch: producerId === null ? null : 0,
    leaderEpoch,
    transactional: producerId !== null,
    timestamp: 1_700_000_000_000 + offset,
    key: content?.[0] ?? null,
    value: content?.[1] ?? null,
    headers: [],
  }
}

// The KIP's worked example (kip-1279-excerpt.txt): the source at the time of failure, the destination that
// replication had reached offset 2 on, and the destination after STOPPING appended its markers.
const SOURCE = [
  record(0, 'DATA', 4001, ['A', '1']),
  record(1, 'DATA', 4001, ['B', '2']),
  record(2, 'DATA', 4002, ['X', '9']),
  record(3, 'COMMIT', 4001),
  record(4, 'DATA', 4003, ['Y', '5']),
  record(5, 'DATA', null, ['Z', '10']),
]
const DESTINATION_AT_FAILOVER = SOURCE.slice(0, 3)
const DESTINATION_AFTER_STOPPING = [...DESTINATION_AT_FAILOVER, record(3, 'ABORT', 4001, undefined, 11), record(4, 'ABORT', 4002, undefined, 11), record(5, 'MIRROR_PID_RESET', null, undefined, 11)]

const extent = (logStartOffset: number, logEndOffset: number, highWatermark = logEndOffset): LogExtent => ({ logStartOffset, logEndOffset, highWatermark })

/** The strip as the KIP's tables: offset, type, producer id, content, per lane. */
function table(columns: ReturnType<typeof alignLogs>['columns'], lane: 'source' | 'destination') {
  return columns.flatMap((column) => {
    const entry = column[lane].record
    return entry === null ? [] : [[column.offset, entry.type, entry.producerId, entry.type === 'DATA' ? recordContent(entry) : '']]
  })
}

describe('alignLogs on the worked example', () => {
  const window = { from: 0, size: 200 }

  it('puts offset N of both logs in one column, marks source 3-5 at risk and the mirrored position at 3', () => {
    const aligned = alignLogs({
      window,
      source: { extent: extent(0, 6), records: SOURCE },
      destination: { extent: extent(0, 3), records: DESTINATION_AT_FAILOVER },
      mirroredOffset: 3,
      truncation: null,
    })
    expect(aligned.columns.map((column) => column.offset)).toEqual([0, 1, 2, 3, 4, 5])
    expect(table(aligned.columns, 'source')).toEqual([
      [0, 'DATA', 4001, 'A=1'],
      [1, 'DATA', 4001, 'B=2'],
      [2, 'DATA', 4002, 'X=9'],
      [3, 'COMMIT', 4001, ''],
      [4, 'DATA', 4003, 'Y=5'],
      [5, 'DATA', null, 'Z=10'],
    ])
    expect(table(aligned.columns, 'destination')).toEqual([
      [0, 'DATA', 4001, 'A=1'],
      [1, 'DATA', 4001, 'B=2'],
      [2, 'DATA', 4002, 'X=9'],
    ])
    expect(aligned.columns.map((column) => column.source.atRisk)).toEqual([false, false, false, true, true, true])
    // The destination's missing tail over the at-risk range is the hatched gap.
    expect(aligned.columns.map((column) => [column.destination.empty, column.destination.atRisk])).toEqual([
      [null, false],
      [null, false],
      [null, false],
      ['beyondLogEnd', true],
      ['beyondLogEnd', true],
      ['beyondLogEnd', true],
    ])
    expect(aligned.mirroredLine).toBe(3)
    expect(aligned.atRisk).toEqual({ from: 3, to: 6, count: 3 })
  })

  it('after STOPPING the destination holds ABORT 4001 at 3, ABORT 4002 at 4 and the PID reset at 5, still short of the COMMIT', () => {
    const aligned = alignLogs({
      window,
      source: { extent: extent(0, 6), records: SOURCE },
      destination: { extent: extent(0, 6), records: DESTINATION_AFTER_STOPPING },
      mirroredOffset: mirroredPosition({ state: 'STOPPED', destinationHighWatermark: 6, lastMirrorPosition: { offset: 3 } }),
      truncation: null,
    })
    expect(table(aligned.columns, 'destination').slice(3)).toEqual([
      [3, 'ABORT', 4001, ''],
      [4, 'ABORT', 4002, ''],
      [5, 'MIRROR_PID_RESET', null, ''],
    ])
    expect(aligned.mirroredLine).toBe(3)
    expect(aligned.columns.map((column) => column.source.atRisk)).toEqual([false, false, false, true, true, true])
    expect(aligned.columns.every((column) => !column.destination.atRisk)).toBe(true)
  })

  it('failback: the cut at 3 on the old source, with the removed records ghosted where they are known', () => {
    const aligned = alignLogs({
      window,
      source: { extent: extent(0, 6), records: DESTINATION_AFTER_STOPPING },
      destination: { extent: extent(0, 3), records: DESTINATION_AT_FAILOVER },
      mirroredOffset: 3,
      truncation: { offset: 3, removedRecords: 3 },
      removedRecords: SOURCE.slice(3),
    })
    expect(aligned.truncationLine).toBe(3)
    expect(aligned.columns.map((column) => column.destination.removed?.type ?? null)).toEqual([null, null, null, 'COMMIT', 'DATA', 'DATA'])
    expect(describeCell('destination', aligned.columns[3]!.destination, 3)).toContain('removed by truncation: COMMIT')
  })

  it('shows loading cells until a lane is read, and nothing beyond the logs', () => {
    const aligned = alignLogs({
      window: { from: 0, size: 50 },
      source: { extent: extent(0, 2), records: null },
      destination: { extent: null, records: null },
      mirroredOffset: null,
      truncation: null,
    })
    expect(aligned.columns.map((column) => [column.source.empty, column.destination.empty])).toEqual([
      ['loading', 'loading'],
      ['loading', 'loading'],
    ])
    expect(aligned.mirroredLine).toBeNull()
  })

  it('shows the cells past a first screen of records as loading, not as compacted away', () => {
    const aligned = alignLogs({
      window: { from: 0, size: 50 },
      source: { extent: extent(0, 6), records: SOURCE.slice(0, 2), recordsEndOffset: 3 },
      destination: { extent: extent(0, 3), records: DESTINATION_AT_FAILOVER },
      mirroredOffset: 3,
      truncation: null,
    })
    expect(aligned.columns.map((column) => column.source.record?.offset ?? column.source.empty)).toEqual([0, 1, 'noRecord', 'loading', 'loading', 'loading'])
    expect(aligned.columns.map((column) => column.destination.record?.offset ?? column.destination.empty)).toEqual([0, 1, 2, 'beyondLogEnd', 'beyondLogEnd', 'beyondLogEnd'])
  })

  it('shows the cells before a first screen around the story point as loading too', () => {
    const aligned = alignLogs({
      window: { from: 0, size: 50 },
      source: { extent: extent(0, 6), records: SOURCE.slice(2, 4), recordsFromOffset: 2, recordsEndOffset: 4 },
      destination: { extent: extent(0, 3), records: DESTINATION_AT_FAILOVER },
      mirroredOffset: 3,
      truncation: null,
    })
    expect(aligned.columns.map((column) => column.source.record?.offset ?? column.source.empty)).toEqual(['loading', 'loading', 2, 3, 'loading', 'loading'])
  })

  it('tells apart deleted, compacted and not yet readable offsets', () => {
    const aligned = alignLogs({
      window: { from: 0, size: 50 },
      source: { extent: extent(2, 6, 5), records: [record(2, 'DATA', null, ['k', 'v']), record(4, 'DATA', null, ['k', 'w'])] },
      destination: { extent: extent(0, 0), records: [] },
      mirroredOffset: 0,
      truncation: null,
    })
    expect(aligned.columns.map((column) => column.source.empty)).toEqual(['beforeLogStart', 'beforeLogStart', null, 'noRecord', null, 'aboveHighWatermark'])
    expect(aligned.columns.map((column) => column.offset)).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('places the lines only inside the window, the mirrored line after the last column at the log end', () => {
    const logs = { source: { extent: extent(0, 6), records: SOURCE }, destination: { extent: extent(0, 6), records: SOURCE } }
    expect(alignLogs({ ...logs, window: { from: 0, size: 200 }, mirroredOffset: 6, truncation: null }).mirroredLine).toBe(6)
    expect(alignLogs({ ...logs, window: { from: 0, size: 2 }, mirroredOffset: 4, truncation: { offset: 5, removedRecords: 1 } })).toMatchObject({ mirroredLine: null, truncationLine: null })
    expect(alignLogs({ ...logs, window: { from: 2, size: 2 }, mirroredOffset: 3, truncation: null }).mirroredLine).toBe(1)
  })
})

describe('records at risk and the mirrored position', () => {
  it('counts the source records beyond the mirrored position', () => {
    expect(recordsAtRisk(3, 6)).toEqual({ from: 3, to: 6, count: 3 })
    expect(recordsAtRisk(6, 6)).toBeNull()
    expect(recordsAtRisk(null, 6)).toBeNull()
    expect(recordsAtRisk(3, null)).toBeNull()
  })

  it('uses the last mirror position once stopped, the destination high watermark otherwise', () => {
    expect(mirroredPosition({ state: 'PAUSED', destinationHighWatermark: 3, lastMirrorPosition: null })).toBe(3)
    expect(mirroredPosition({ state: 'MIRRORING', destinationHighWatermark: 9, lastMirrorPosition: { offset: 3 } })).toBe(9)
    expect(mirroredPosition({ state: 'STOPPING', destinationHighWatermark: 5, lastMirrorPosition: { offset: 3 } })).toBe(3)
    expect(mirroredPosition({ state: 'STOPPED', destinationHighWatermark: 6, lastMirrorPosition: null })).toBe(6)
  })
})

describe('paging windows', () => {
  const bounds = logBounds([extent(100, 5_000), extent(0, 4_200)])

  it('spans the lowest log start to the highest log end', () => {
    expect(bounds).toEqual({ start: 0, end: 5_000 })
    expect(logBounds([null, undefined])).toEqual({ start: 0, end: 0 })
  })

  it('start, end, next and previous stay inside the logs', () => {
    expect(firstWindow(200, bounds)).toEqual({ from: 0, size: 200 })
    expect(lastWindow(200, bounds)).toEqual({ from: 4_800, size: 200 })
    expect(nextWindow({ from: 4_700, size: 200 }, bounds)).toEqual({ from: 4_800, size: 200 })
    expect(previousWindow({ from: 100, size: 200 }, bounds)).toEqual({ from: 0, size: 200 })
    expect(clampWindow(-50, 200, bounds)).toEqual({ from: 0, size: 200 })
    expect(clampWindow(12.7, 200, bounds)).toEqual({ from: 12, size: 200 })
    // Logs shorter than a window start at their start.
    expect(lastWindow(200, { start: 0, end: 6 })).toEqual({ from: 0, size: 200 })
  })

  it('jumping to an offset keeps a quarter of the window before it', () => {
    expect(windowAround(1_000, 200, bounds)).toEqual({ from: 950, size: 200 })
    expect(windowAround(10, 200, bounds)).toEqual({ from: 0, size: 200 })
    expect(windowAround(4_990, 200, bounds)).toEqual({ from: 4_800, size: 200 })
  })

  it('opens on the whole log when it fits, else around the mirrored position, else at the end', () => {
    expect(initialWindow(200, { start: 0, end: 6 }, 3)).toEqual({ from: 0, size: 200 })
    expect(initialWindow(200, bounds, 3_000)).toEqual({ from: 2_950, size: 200 })
    expect(initialWindow(200, bounds, null)).toEqual({ from: 4_800, size: 200 })
  })

  it('stands still while a live log grows by less than a step, and moves a step at a time', () => {
    // Mirrored to the end: the window ends at the log end rounded up to a quarter of it (50 offsets).
    const at = (end: number) => initialWindow(200, { start: 0, end }, end)
    expect(at(5_001)).toEqual({ from: 4_850, size: 200 })
    expect(at(5_020)).toEqual(at(5_001))
    expect(at(5_050)).toEqual(at(5_001))
    expect(at(5_051)).toEqual({ from: 4_900, size: 200 })
    // Behind the end (lag): the start moves on a grid of an eighth (25), the mirrored position always inside.
    const behind = (mirrored: number) => initialWindow(200, { start: 0, end: 9_000 }, mirrored)
    expect(behind(3_000)).toEqual(behind(3_020))
    for (let mirrored = 3_000; mirrored < 3_100; mirrored += 7) {
      const window = behind(mirrored)
      expect(mirrored - window.from).toBeGreaterThanOrEqual(50)
      expect(mirrored).toBeLessThan(window.from + window.size)
    }
    // Never past the log start, and without a story point at the end.
    expect(initialWindow(200, { start: 4_990, end: 5_300 }, 5_000)).toEqual({ from: 4_990, size: 200 })
    expect(initialWindow(200, { start: 0, end: 5_001 }, null)).toEqual({ from: 4_850, size: 200 })
  })

  it('holds a truncation cut and the mirrored position in one window whenever storyFocus says both fit', () => {
    for (let gap = 0; gap < 200; gap++) {
      const p = { state: 'MIRRORING', destinationHighWatermark: 7_000 + gap, lastMirrorPosition: null, lastTruncation: { offset: 7_000, removedRecords: 3 } }
      const focus = storyFocus(p, 200)
      if (focus !== 7_000) continue
      const window = initialWindow(200, { start: 0, end: 9_000 }, focus)
      expect(window.from).toBeLessThanOrEqual(7_000)
      expect(window.from + window.size, `gap ${gap}`).toBeGreaterThan(7_000 + gap)
    }
  })

  it('resolves where the window stands as the logs grow', () => {
    expect(resolveWindow({ kind: 'auto' }, 200, bounds, 3_000)).toEqual({ from: 2_950, size: 200 })
    expect(resolveWindow({ kind: 'end' }, 200, bounds, 3_000)).toEqual({ from: 4_800, size: 200 })
    expect(resolveWindow({ kind: 'end' }, 200, { start: 0, end: 5_100 }, null)).toEqual({ from: 4_900, size: 200 })
    expect(resolveWindow({ kind: 'from', from: 400 }, 200, bounds, null)).toEqual({ from: 400, size: 200 })
    expect(resolveWindow({ kind: 'around', offset: 400 }, 1_000, bounds, null)).toEqual({ from: 150, size: 1_000 })
  })

  it('reads each log from its start within the window, one request per window, none outside the log', () => {
    expect(recordsRead({ from: 0, size: 200 }, extent(100, 5_000))).toEqual({ fromOffset: 100, limit: 100 })
    expect(recordsRead({ from: 4_800, size: 200 }, extent(0, 4_200))).toBeNull()
    expect(recordsRead({ from: 4_000, size: 1_000 }, extent(0, 4_200))).toEqual({ fromOffset: 4_000, limit: 1_000 })
    expect(recordsRead({ from: 0, size: 50 }, extent(60, 100))).toBeNull()
  })
})

describe('cell text', () => {
  it('writes DATA as key=value and markers by name, with producer and epochs in the description', () => {
    expect(recordContent(SOURCE[0]!)).toBe('A=1')
    expect(recordContent(record(9, 'DATA', null, undefined))).toBe('null')
    expect(recordContent({ ...SOURCE[0]!, encoding: 'base64' })).toBe('binary')
    const aligned = alignLogs({
      window: { from: 0, size: 200 },
      source: { extent: extent(0, 6), records: SOURCE },
      destination: { extent: extent(0, 3), records: DESTINATION_AT_FAILOVER },
      mirroredOffset: 3,
      truncation: null,
    })
    expect(describeCell('source', aligned.columns[3]!.source, 3)).toBe('source offset 3, COMMIT, producer 4001 epoch 0, leader epoch 0, at risk: not mirrored')
    expect(describeCell('source', aligned.columns[0]!.source, 3)).toBe('source offset 0, DATA A=1, producer 4001 epoch 0, leader epoch 0, transactional, mirrored')
    expect(describeCell('destination', aligned.columns[4]!.destination, 3)).toBe('destination offset 4, not written, missing here: at risk on the source')
  })
})

describe('firstScreenRead', () => {
  it('cuts a long read to the first screen and leaves a short one as it is', () => {
    expect(firstScreenRead({ fromOffset: 400, limit: 1000 })).toEqual({ fromOffset: 400, limit: FIRST_SCREEN_OFFSETS })
    const short = { fromOffset: 7, limit: FIRST_SCREEN_OFFSETS }
    expect(firstScreenRead(short)).toBe(short)
  })

  it('reads the first screen around the point the tape opens at, inside the read', () => {
    // The tape opens at its story point near the window's end: the screen before it and after it.
    expect(firstScreenRead({ fromOffset: 700, limit: 200 }, 880)).toEqual({ fromOffset: 860, limit: FIRST_SCREEN_OFFSETS })
    expect(firstScreenRead({ fromOffset: 700, limit: 200 }, 760)).toEqual({ fromOffset: 748, limit: FIRST_SCREEN_OFFSETS })
    // Near the read's start, its start; a point outside it (the tape opens at the window's start): its start too.
    expect(firstScreenRead({ fromOffset: 700, limit: 200 }, 705)).toEqual({ fromOffset: 700, limit: FIRST_SCREEN_OFFSETS })
    expect(firstScreenRead({ fromOffset: 700, limit: 200 }, 950)).toEqual({ fromOffset: 700, limit: FIRST_SCREEN_OFFSETS })
    expect(firstScreenRead({ fromOffset: 700, limit: 200 }, null)).toEqual({ fromOffset: 700, limit: FIRST_SCREEN_OFFSETS })
  })
})

describe('storyFocus: where the tapes open on a long log', () => {
  const partition = (state: string, destinationHighWatermark: number, cut: number | null) => ({ state, destinationHighWatermark, lastMirrorPosition: null, lastTruncation: cut === null ? null : { offset: cut } })
  const bounds = { start: 0, end: 10_000 }

  it('opens at the mirrored position, not at offset 0', () => {
    // A quarter of the window before it at least, its start on the window's grid of twelve (an eighth of 100).
    expect(resolveWindow({ kind: 'auto' }, 100, bounds, storyFocus(partition('MIRRORING', 9_000, null), 100))).toEqual({ from: 8_964, size: 100 })
  })

  it('keeps the truncation cut and the mirrored position in one window when they fit', () => {
    const window = resolveWindow({ kind: 'auto' }, 100, bounds, storyFocus(partition('MIRRORING', 9_050, 9_000), 100))
    expect(window.from).toBeLessThanOrEqual(9_000)
    expect(window.from + window.size).toBeGreaterThan(9_050)
  })

  it('opens at the cut of a FAILED or PREPARING partition when both do not fit, else at the mirrored position', () => {
    expect(storyFocus(partition('FAILED', 9_500, 4_000), 100)).toBe(4_000)
    expect(storyFocus(partition('PREPARING', 9_500, 4_000), 100)).toBe(4_000)
    expect(storyFocus(partition('MIRRORING', 9_500, 4_000), 100)).toBe(9_500)
  })

  it("does not open at a new mirror's start, a truncation that removed nothing", () => {
    const started = { state: 'PAUSED', destinationHighWatermark: 120, lastMirrorPosition: null, lastTruncation: { offset: 0, removedRecords: 0 } }
    expect(storyFocus(started, 200)).toBe(120)
    expect(storyFocus({ ...started, lastTruncation: { offset: 60, removedRecords: 5 } }, 200)).toBe(60)
  })

  it("opens a FAILED partition whose source diverged at the cut a truncation would make, not at its last truncation's", () => {
    const diverged = { ...partition('FAILED', 9_500, 100), divergence: { offset: 9_200, truncateTo: 9_180 } }
    expect(storyFocus(diverged, 1_000)).toBe(9_180)
    expect(storyFocus({ ...diverged, divergence: { offset: 3, truncateTo: null } }, 100)).toBe(0)
    // Recovered: the divergence no longer tells the story.
    expect(storyFocus({ ...diverged, state: 'MIRRORING' }, 100)).toBe(9_500)
  })
})

describe('openingColumn: a window that holds the whole log still opens at its story, not at offset 0', () => {
  it('scrolls the tape to the focus with a quarter of the visible columns before it', () => {
    expect(openingColumn({ from: 0, size: 1_000 }, 180, 12)).toBe(177)
    expect(openingColumn({ from: 500, size: 1_000 }, 520, 12)).toBe(17)
    expect(openingColumn({ from: 0, size: 1_000 }, 1_000, 12)).toBe(997)
  })

  it('starts at the window start when the focus is near it or outside the window', () => {
    expect(openingColumn({ from: 0, size: 1_000 }, 2, 12)).toBe(0)
    expect(openingColumn({ from: 0, size: 1_000 }, 1_001, 12)).toBe(0)
    expect(openingColumn({ from: 100, size: 1_000 }, 50, 12)).toBe(0)
    expect(openingColumn({ from: 0, size: 1_000 }, null, 12)).toBe(0)
  })
})
