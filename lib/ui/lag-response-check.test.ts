import { describe, expect, it } from 'vitest'
import { LagResponse } from '../api/mirrors'
import { readLagResponse } from './lag-response-check'

function series(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    topic: 'orders',
    partition: 3,
    points: [
      [1_764_590_000_000, 2, 40],
      [1_764_590_005_000, null, null],
    ],
    ...overrides,
  }
}

/** The same verdict as the schema: the same value, or a throw. */
async function expectSameVerdict(body: unknown): Promise<void> {
  const schema = LagResponse.safeParse(body)
  if (schema.success) expect(await readLagResponse(body)).toEqual(schema.data)
  else await expect(async () => readLagResponse(body)).rejects.toThrow()
}

const SERIES_VARIANTS: Record<string, unknown[]> = {
  topic: ['', '.', '..', 'a/b', 7, null, 'x'.repeat(250), 'ok.topic_1-2', undefined],
  partition: [-1, 1.5, 2 ** 31, 2 ** 31 - 1, '3', null, undefined],
  points: [
    [],
    null,
    {},
    [[1, 0, 0]],
    [[1.5, 0, 0]],
    [[null, 0, 0]],
    [[1, -1, 0]],
    [[1, 0, -1]],
    [[1, 0.5, 0]],
    [[1, 0, 2 ** 60]],
    [[1, 0]],
    [[1, 0, 0, 0]],
    [['1', 0, 0]],
    [{ 0: 1, 1: 0, 2: 0 }],
    undefined,
  ],
}

const ENVELOPE_VARIANTS: Record<string, unknown[]> = {
  throttled: [true, false, undefined, null, 'yes', 1],
  throttledRate: [undefined, null, 0, 1_000_000, -1, 1.5, '5'],
  throughput: [undefined, null, [], {}, [[1, 0, 0]], [[1, 2.5, 1024.5]], [[1.5, 0, 0]], [[1, -1, 0]], [[1, 0, -0.5]], [[1, Infinity, 0]], [[1, NaN, 0]], [[1, 0]], [[1, 0, 0, 0]], [['1', 0, 0]], [[1, null, 0]], [{ 0: 1, 1: 0, 2: 0 }]],
  lagUnknown: [undefined, null, [], {}, [{ from: 1, to: null }], [{ from: 1, to: 2 }], [{ from: 1.5, to: null }], [{ from: 1 }], [{ to: null }], [{ from: 1, to: '2' }], [{ from: 1, to: null, extra: true }], [null], [[1, 2]]],
}

describe('readLagResponse', () => {
  it('accepts a valid answer as it is, without copying 600,000 points', async () => {
    const body = { series: [series(), series({ partition: 4, points: [] })], throttled: false, throttledRate: null }
    expect(readLagResponse(body)).toBe(body)
    await expectSameVerdict(body)
    const bare = { series: [] }
    expect(readLagResponse(bare)).toBe(bare)
  })

  it('accepts the throughput and the spans of unknown lag as they are: the whole answer the server sends today', async () => {
    const body = {
      series: [series()],
      throughput: [
        [1_764_590_000_000, 0, 0],
        [1_764_590_001_000, 12.5, 2048],
      ],
      lagUnknown: [
        { from: 1_764_589_000_000, to: 1_764_589_060_000 },
        { from: 1_764_590_000_000, to: null },
      ],
      throttled: false,
      throttledRate: null,
    }
    expect(readLagResponse(body)).toBe(body)
    await expectSameVerdict(body)
  })

  it('gives the schema’s verdict for every series field of the wrong kind or range', async () => {
    for (const [field, values] of Object.entries(SERIES_VARIANTS)) {
      for (const value of values) {
        const changed = series({ [field]: value })
        if (value === undefined) delete changed[field]
        await expectSameVerdict({ series: [series(), changed] })
      }
    }
  })

  it('gives the schema’s verdict for the envelope’s fields (throttle, throughput, spans of unknown lag)', async () => {
    for (const [field, values] of Object.entries(ENVELOPE_VARIANTS)) {
      for (const value of values) {
        const body: Record<string, unknown> = { series: [series()], [field]: value }
        if (value === undefined) delete body[field]
        await expectSameVerdict(body)
      }
    }
  })

  it('accepts the per-topic answer (by=topic) as it is and gives the schema’s verdict for its fields', async () => {
    const topic = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({ topic: 'orders', partitions: 1000, points: [[1_764_590_000_000, 2_000, 40], [1_764_590_005_000, null, null]], ...overrides })
    const body = { series: [], topics: [topic(), topic({ topic: 'payments', points: [] })], throttled: false, throttledRate: null }
    expect(readLagResponse(body)).toBe(body)
    await expectSameVerdict(body)
    const variants: Record<string, unknown[]> = { topic: SERIES_VARIANTS.topic!, partitions: [0, -1, 1.5, '3', null, undefined], points: SERIES_VARIANTS.points!, partition: [3] }
    for (const [field, values] of Object.entries(variants)) {
      for (const value of values) {
        const changed = topic({ [field]: value })
        if (value === undefined) delete changed[field]
        await expectSameVerdict({ series: [], topics: [topic(), changed] })
      }
    }
    for (const topics of [null, {}, [null], [[]]]) await expectSameVerdict({ series: [], topics })
  })

  it('leaves what it does not accept exactly to the schema: extra keys stripped, bad envelopes refused', async () => {
    expect(await readLagResponse({ series: [series({ extra: 1 })], more: true })).toEqual({ series: [series()] })
    for (const body of [null, [], {}, { series: {} }, { series: [null] }, { series: [[]] }]) await expectSameVerdict(body)
  })
})
