import { describe, expect, it, vi } from 'vitest'
import { JsonTemplate, jsonTemplate } from '@/server/util/json-template'
import { ELEMENT_WISE_ARRAY_LENGTH, jsonBody } from './json-body'

const text = (body: unknown) => Buffer.from(jsonBody(body)).toString('utf8')

const element = (n: number) => ({ topic: `orders-"${n % 7}"\u2028é`, partition: n, lastTruncation: null, position: { epoch: 1, offset: n }, skipped: undefined })
const long = (length: number) => Array.from({ length }, (_, n) => element(n))
const deepFreeze = <T extends object>(value: T): T => {
  for (const member of Object.values(value)) if (typeof member === 'object' && member !== null) deepFreeze(member)
  return Object.freeze(value)
}

describe('jsonBody', () => {
  it('makes exactly what JSON.stringify makes', () => {
    const frozen = long(ELEMENT_WISE_ARRAY_LENGTH + 3).map(deepFreeze)
    const bodies: unknown[] = [
      { partitions: long(ELEMENT_WISE_ARRAY_LENGTH) },
      { partitions: long(ELEMENT_WISE_ARRAY_LENGTH + 1) },
      { partitions: frozen, count: 3, gone: undefined },
      { partitions: frozen, count: 4 },
      { first: long(ELEMENT_WISE_ARRAY_LENGTH + 7), middle: { a: [1, 2] }, second: [...long(ELEMENT_WISE_ARRAY_LENGTH + 1), undefined, null, 5, 'x', () => 1] },
      { gone: undefined, series: [...frozen.slice(0, 10), ...long(ELEMENT_WISE_ARRAY_LENGTH)] },
      { dates: Array.from({ length: ELEMENT_WISE_ARRAY_LENGTH + 1 }, (_, n) => Object.freeze(new Date(n))) },
      [long(ELEMENT_WISE_ARRAY_LENGTH + 1)],
      null,
      'text',
    ]
    for (const body of bodies) expect(text(body)).toBe(JSON.stringify(body))
  })
})

describe('jsonBody with templates', () => {
  const withTemplate = <T extends object>(value: T, template: JsonTemplate): T => deepFreeze({ ...value, [jsonTemplate]: template })

  it('writes an element sharing a template as the template around its own value, identical to JSON.stringify', () => {
    const templates = Array.from({ length: ELEMENT_WISE_ARRAY_LENGTH + 1 }, () => new JsonTemplate('lastFetchAt'))
    const round = (at: number | null) => templates.map((template, n) => withTemplate({ topic: `t-"${n}"`, partition: n, lastFetchAt: at, error: n % 2 ? 'said "lastFetchAt":5' : null, after: { n } }, template))
    const first = round(1)
    expect(text({ partitions: first })).toBe(JSON.stringify({ partitions: first }))
    expect(templates.every((template) => template.parts !== null)).toBe(true)
    // A template is only the caller's word for frozen objects: an unfrozen one is encoded whole, as it is.
    const unfrozen = templates.map((template, n) => ({ topic: 'other', partition: n, lastFetchAt: 3, [jsonTemplate]: template }))
    expect(text({ partitions: unfrozen })).toBe(JSON.stringify({ partitions: unfrozen }))
    const stringify = vi.spyOn(JSON, 'stringify')
    try {
      for (const at of [1764400000000, null, 7]) {
        const next = round(at)
        const encoded = text({ partitions: next })
        // Only the values were encoded, not the elements.
        expect(stringify.mock.calls.filter(([value]) => typeof value === 'object' && value !== null && 'partition' in value)).toEqual([])
        stringify.mockClear()
        expect(encoded).toBe(JSON.stringify({ partitions: next }))
      }
    } finally {
      stringify.mockRestore()
    }
  })

  it('writes several volatile members, in whatever order they appear, around the shared text', () => {
    const templates = Array.from({ length: ELEMENT_WISE_ARRAY_LENGTH + 1 }, () => new JsonTemplate('lagAsOf', 'lastFetchAt'))
    const round = (at: number | null, asOf: number | null) => templates.map((template, n) => withTemplate({ n, lastFetchAt: at, middle: `"${n}"`, lagAsOf: asOf, tail: [n] }, template))
    const first = round(1, 1)
    expect(text({ partitions: first })).toBe(JSON.stringify({ partitions: first }))
    for (const [at, asOf] of [[2, 2], [3, null], [null, 4], [5, 5]] as const) {
      const next = round(at, asOf)
      expect(text({ partitions: next })).toBe(JSON.stringify({ partitions: next }))
    }
  })

  it('encodes elements whole when the volatile key appears twice in them', () => {
    const template = new JsonTemplate('lastFetchAt')
    const make = (at: number) => Array.from({ length: ELEMENT_WISE_ARRAY_LENGTH + 1 }, (_, n) => withTemplate({ lastFetchAt: at, nested: { lastFetchAt: at }, n }, template))
    const first = make(1)
    expect(text({ items: first })).toBe(JSON.stringify({ items: first }))
    expect(template.unsplittable).toBe(true)
    const next = make(2)
    expect(text({ items: next })).toBe(JSON.stringify({ items: next }))
  })
})
