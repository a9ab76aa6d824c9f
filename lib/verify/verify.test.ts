import { describe, expect, it } from 'vitest'
import { crc32cJs } from '../log/crc32c-js'
import { decodeBatchRecords, encodeBatch, encodeControlBatch, mirrorPidResetValue } from '../log/record-batch'
import { alignStep } from './aligned-step'
import { batchesOf, compareByteStep, type ByteComparisonTools } from './batch-comparison'
import { compareContentStep, type DestinationContentRecord } from './content-comparison'
import type { ContentRecord } from './types'
import { identicalSentence, identicalUpTo, settledStatus, verificationRange } from './verification-range'

const tools: ByteComparisonTools = {
  crc32c: crc32cJs,
  equal: (a, b) => a.length === b.length && a.every((byte, index) => byte === b[index]),
  decode: (batch) => decodeBatchRecords(batch.bytes, batch.header),
}

const encoder = new TextEncoder()

function batch(baseOffset: number, values: string[], epoch = 0): Uint8Array {
  return encodeBatch({ baseOffset, partitionLeaderEpoch: epoch, timestamp: 1000 + baseOffset, records: values.map((value, index) => ({ key: `k${baseOffset + index}`, value })) }, crc32cJs)
}

function log(...batches: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(batches.reduce((sum, b) => sum + b.length, 0))
  let at = 0
  for (const b of batches) {
    out.set(b, at)
    at += b.length
  }
  return out
}

/** Flips one byte of the value of the record at `offset` (a payload byte: framing and lengths stay intact). */
function rot(bytes: Uint8Array, offset: number): Uint8Array {
  const copy = bytes.slice()
  for (const candidate of batchesOf(copy)) {
    for (const record of decodeBatchRecords(candidate.bytes, candidate.header)) {
      if (record.offset !== offset || record.value === null) continue
      const at = record.value.byteOffset - copy.byteOffset
      copy[at] = copy[at]! ^ 0x01
      return copy
    }
  }
  throw new Error(`no record at ${offset}`)
}

describe('alignStep', () => {
  const span = (first: number, last: number) => ({ first, last })

  it('judges only what both answers cover, and starts the next step where one of them ended', () => {
    const step = alignStep({ items: [span(0, 4), span(5, 9)] }, { items: [span(0, 4)] }, 0, 100)
    expect(step.pairs.map((pair) => pair.kind)).toEqual(['both'])
    expect(step.next).toBe(5)
  })

  it('lets a side that answered nothing judge the other side to the range end', () => {
    const step = alignStep({ items: [] }, { items: [span(3, 3), span(4, 4)] }, 3, 5)
    expect(step.pairs.map((pair) => pair.kind)).toEqual(['destinationOnly', 'destinationOnly'])
    expect(step.next).toBe(5)
  })

  it('never judges beyond the range end and never stalls', () => {
    const step = alignStep({ items: [span(0, 9)] }, { items: [span(0, 9)] }, 2, 5)
    expect(step.pairs).toEqual([])
    expect(step.next).toBe(5)
    expect(() => alignStep({ items: [] }, { items: [] }, 5, 5)).toThrow(RangeError)
  })
})

describe('byte mode', () => {
  const source = log(batch(0, ['a', 'b', 'c']), batch(3, ['d', 'e']), batch(5, ['f']))

  it('passes an identical range: every batch judged, no mismatch', () => {
    const result = compareByteStep({ source: batchesOf(source), destination: batchesOf(source), cursor: 0, to: 6 }, tools)
    expect(result).toMatchObject({ mismatches: [], batches: 3, bytes: source.length, next: 6 })
  })

  it('names the offset of one flipped byte, and reports the batch failing its own CRC', () => {
    const destination = rot(source, 4)
    const result = compareByteStep({ source: batchesOf(source), destination: batchesOf(destination), cursor: 0, to: 6 }, tools)
    expect(result.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([
      { offset: 3, kind: 'crc' },
      { offset: 4, kind: 'bytes' },
    ])
    expect(result.mismatches[0]!.detail).toMatch(/destination batch 3–4 fails its own CRC32C check \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\)/)
    expect(result.mismatches[1]!.detail).toBe('record at offset 4 differs: value: source "e" / destination "d"')
  })

  it('reports batches one side lacks as missing or extra', () => {
    const shorter = log(batch(0, ['a', 'b', 'c']), batch(5, ['f']))
    const missing = compareByteStep({ source: batchesOf(source), destination: batchesOf(shorter), cursor: 0, to: 6 }, tools)
    expect(missing.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([{ offset: 3, kind: 'missing' }])
    // The source ends at 3: from there it answers nothing, the destination its two batches beyond.
    const extra = compareByteStep({ source: [], destination: batchesOf(source).slice(1), cursor: 3, to: 6 }, tools)
    expect(extra.mismatches.map(({ offset, kind }) => ({ offset, kind }))).toEqual([
      { offset: 3, kind: 'extra' },
      { offset: 5, kind: 'extra' },
    ])
  })

  it('tells a header-only difference (another leader epoch) from a record difference', () => {
    const other = log(batch(0, ['a', 'b', 'c'], 7))
    const result = compareByteStep({ source: batchesOf(log(batch(0, ['a', 'b', 'c']))), destination: batchesOf(other), cursor: 0, to: 3 }, tools)
    expect(result.mismatches).toHaveLength(1)
    expect(result.mismatches[0]).toMatchObject({ offset: 0, kind: 'bytes' })
    expect(result.mismatches[0]!.detail).toContain('partitionLeaderEpoch: source 0 / destination 7')
  })
})

function content(offset: number, value: string, type = 'DATA'): ContentRecord {
  return { offset, type, key: encoder.encode(`k${offset}`), value: encoder.encode(value), headers: [], timestamp: 1000 + offset }
}

function atDestination(record: ContentRecord, destinationOffset = record.offset): DestinationContentRecord {
  return { ...record, destinationOffset }
}

describe('content mode', () => {
  const source = [content(0, 'a'), content(1, 'b'), content(2, 'c')]

  it('passes records that read the same, whatever offsets they have on the destination', () => {
    const destination = source.map((record) => atDestination(record, record.offset + 10))
    expect(compareContentStep({ source, destination, cursor: 0, to: 3 })).toEqual({ mismatches: [], records: 3, next: 3 })
  })

  it('reports a record written to the destination behind the mirror`s back', () => {
    const destination = [...source.map((record) => atDestination(record)), atDestination(content(3, 'intruder'))]
    // The first step judges what both answers hold (0–2); from 3 the source answers nothing.
    const first = compareContentStep({ source, destination, cursor: 0, to: 4 })
    expect(first).toEqual({ mismatches: [], records: 3, next: 3 })
    const result = compareContentStep({ source: [], destination: destination.slice(3), cursor: 3, to: 4 })
    expect(result.mismatches).toEqual([{ offset: 3, kind: 'extra', detail: 'destination record at offset 3 stands for no source record: it was written to the destination behind the mirror\'s back (key "k3")' }])
  })

  it('names the field that differs', () => {
    const destination = [atDestination(content(0, 'a')), atDestination({ ...content(1, 'b'), headers: [{ key: 'h', value: null }] }), atDestination(content(2, 'c'))]
    const result = compareContentStep({ source, destination, cursor: 0, to: 3 })
    expect(result.mismatches).toEqual([{ offset: 1, kind: 'content', detail: 'record at offset 1 differs: headers: source none / destination h=null' }])
  })

  it('compares transaction markers by type alone (each broker stamps its own time)', () => {
    const withCommit = [...source, content(3, '', 'COMMIT')]
    const destination = [...source.map((record) => atDestination(record)), atDestination({ ...content(3, '', 'COMMIT'), timestamp: 99 })]
    expect(compareContentStep({ source: withCommit, destination, cursor: 0, to: 4 }).mismatches).toEqual([])
    const aborted = [...source.map((record) => atDestination(record)), atDestination(content(3, '', 'ABORT'))]
    expect(compareContentStep({ source: withCommit, destination: aborted, cursor: 0, to: 4 }).mismatches.map((m) => m.detail)).toEqual(['record at offset 3 differs: type: source COMMIT / destination ABORT'])
  })

  it('leaves out what no client can write: a source PID reset, a destination marker that stands for nothing', () => {
    const withReset = [...source, content(3, '', 'MIRROR_PID_RESET'), content(4, 'd')]
    const destination = [...source.map((record) => atDestination(record)), atDestination(content(4, '', 'ABORT'), 3), atDestination(content(4, 'd'), 4)]
    expect(compareContentStep({ source: withReset, destination, cursor: 0, to: 5 }).mismatches).toEqual([])
  })
})

describe('the range and the outcome', () => {
  it('compares a failed-over partition up to its last mirror position, any other up to the destination HW', () => {
    const offsets = { source: { logStartOffset: 2 }, destination: { logStartOffset: 0, highWatermark: 9 } }
    expect(verificationRange({ state: 'STOPPED', lastMirrorPosition: { epoch: 3, offset: 6 }, ...offsets })).toEqual({ fromOffset: 2, toOffset: 6 })
    expect(verificationRange({ state: 'MIRRORING', lastMirrorPosition: null, ...offsets })).toEqual({ fromOffset: 2, toOffset: 9 })
    expect(verificationRange({ state: 'STOPPED', lastMirrorPosition: { epoch: -1, offset: -1 }, ...offsets })).toEqual({ fromOffset: 2, toOffset: 2 })
  })

  it('says where a partition stops being identical', () => {
    expect(identicalUpTo({ fromOffset: 0, verifiedTo: 10, mismatches: [{ offset: 7 }, { offset: 4 }] })).toBe(4)
    expect(identicalUpTo({ fromOffset: 0, verifiedTo: 10, mismatches: [] })).toBe(10)
    expect(identicalSentence({ status: 'identical', fromOffset: 0, toOffset: 10, identicalUpTo: 10, error: null })).toBe('identical up to offset 10')
    expect(identicalSentence({ status: 'mismatched', fromOffset: 0, toOffset: 10, identicalUpTo: 4, error: null })).toBe('identical up to offset 4, then differs')
    expect(identicalSentence({ status: 'failed', fromOffset: 0, toOffset: 10, identicalUpTo: 0, error: 'source unreachable' })).toBe('not verified: source unreachable')
  })

  it('fails a verification a partition could not finish, before one that found differences', () => {
    expect(settledStatus([{ status: 'identical' }, { status: 'identical' }])).toBe('passed')
    expect(settledStatus([{ status: 'identical' }, { status: 'mismatched' }])).toBe('mismatched')
    expect(settledStatus([{ status: 'failed' }, { status: 'mismatched' }])).toBe('failed')
  })
})

describe('control batches in byte mode', () => {
  it('compares a PID reset batch like any other', () => {
    const reset = encodeControlBatch({ baseOffset: 3, partitionLeaderEpoch: 5, producerId: -1, producerEpoch: -1, isTransactional: false, timestamp: 1, typeId: 7, value: mirrorPidResetValue() }, crc32cJs)
    const both = log(batch(0, ['a', 'b', 'c']), reset)
    expect(compareByteStep({ source: batchesOf(both), destination: batchesOf(both), cursor: 0, to: 4 }, tools).mismatches).toEqual([])
  })
})
