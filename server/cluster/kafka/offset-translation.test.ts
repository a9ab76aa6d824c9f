import 'server-only'
import { describe, expect, it } from 'vitest'
import { OffsetTranslation } from './offset-translation'

describe('OffsetTranslation', () => {
  it('stays identical, with no segment, while every source offset lands at itself', () => {
    const translation = new OffsetTranslation()
    for (let offset = 0; offset < 5; offset++) expect(translation.record(offset, offset)).toBe(false)
    expect(translation.entries()).toEqual([])
    expect(translation.identical).toBe(true)
    expect(translation.toDestination(7)).toBe(7)
  })

  it('starts a segment where the delta changes (a compacted gap, a record no client can write) and maps both ways', () => {
    const translation = new OffsetTranslation()
    translation.record(0, 0)
    translation.record(1, 1)
    // Source offsets 2–3 were compacted away: source 4 is the broker's 2.
    expect(translation.record(4, 2)).toBe(true)
    translation.record(5, 3)
    // A MIRROR_PID_RESET at source 6 has no destination record: source 7 is the broker's 4.
    expect(translation.record(7, 4)).toBe(true)
    expect(translation.entries()).toEqual([
      { sourceOffset: 4, destinationOffset: 2 },
      { sourceOffset: 7, destinationOffset: 4 },
    ])
    expect(translation.identical).toBe(false)
    expect([0, 1, 4, 5, 7, 9].map((o) => translation.toDestination(o))).toEqual([0, 1, 2, 3, 4, 6])
    expect([0, 1, 2, 3, 4, 6].map((o) => translation.toSource(o))).toEqual([0, 1, 4, 5, 7, 9])
  })

  it('forgets what was recorded at or beyond a point recorded again (a log restarted there)', () => {
    const translation = new OffsetTranslation([{ sourceOffset: 10, destinationOffset: 0 }, { sourceOffset: 20, destinationOffset: 5 }])
    expect(translation.record(15, 8)).toBe(true)
    expect(translation.entries()).toEqual([{ sourceOffset: 10, destinationOffset: 0 }, { sourceOffset: 15, destinationOffset: 8 }])
    expect(translation.toDestination(30)).toBe(23)
    // Back to what the first segment implies: the later segment is dropped and none added.
    expect(translation.record(15, 5)).toBe(true)
    expect(translation.entries()).toEqual([{ sourceOffset: 10, destinationOffset: 0 }])
  })

  it('forgets the segments below the log start, keeping the one that covers it', () => {
    const translation = new OffsetTranslation()
    for (let append = 1; append <= 4; append++) translation.record(append * 10, append * 10 + append)
    translation.pruneBelow(25)
    expect(translation.entries()).toEqual([
      { sourceOffset: 20, destinationOffset: 22 },
      { sourceOffset: 30, destinationOffset: 33 },
      { sourceOffset: 40, destinationOffset: 44 },
    ])
    expect(translation.toDestination(25)).toBe(27)
    expect(translation.toSource(27)).toBe(25)
    translation.pruneBelow(5)
    expect(translation.entries()).toHaveLength(3)
  })
})
