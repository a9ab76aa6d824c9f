import 'server-only'
import { type JsonTemplate, templateOf } from '@/server/util/json-template'

/**
 * Arrays at the top of a body longer than this are encoded element by element, reusing the JSON that
 * elements share. A 10,000-partition list is 4.6 MB of JSON: ~30 ms to serialize and encode whole, a few
 * ms to assemble from its partitions' templates.
 */
export const ELEMENT_WISE_ARRAY_LENGTH = 1_000

const COMMA = Buffer.from(',')
const OPEN_ARRAY = Buffer.from('[')
const CLOSE_ARRAY = Buffer.from(']')
const NULL = Buffer.from('null')

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value) as unknown
  return prototype === Object.prototype || prototype === null
}

/** The element's JSON as buffers to write one after the other. */
function encodeElement(element: unknown): Buffer[] {
  const template = typeof element === 'object' && element !== null && Object.isFrozen(element) ? templateOf(element) : undefined
  if (template === undefined || template.unsplittable) return [Buffer.from(JSON.stringify(element) ?? 'null', 'utf8')]
  const record = element as Record<string, unknown>
  if (template.parts === null) {
    const text = JSON.stringify(element)
    split(template, text, record)
    return [Buffer.from(text, 'utf8')]
  }
  const { texts, order } = template.parts
  const buffers: Buffer[] = [texts[0]!]
  for (let at = 0; at < order.length; at++) {
    const index = order[at]!
    const value = record[template.volatileKeys[index]!]
    let json = template.lastValueJsons[index] ?? null
    if (json === null || !Object.is(template.lastValues[index], value)) {
      const valueText = JSON.stringify(value)
      template.lastValues[index] = value
      json = template.lastValueJsons[index] = valueText === undefined ? NULL : Buffer.from(valueText, 'utf8')
    }
    buffers.push(json, texts[at + 1]!)
  }
  return buffers
}

/** Splits an element's JSON around its volatile members' values, when each can be found exactly once. */
function split(template: JsonTemplate, text: string, record: Record<string, unknown>): void {
  const found: Array<{ index: number; valueStart: number; valueEnd: number }> = []
  for (const [index, volatileKey] of template.volatileKeys.entries()) {
    const valueText = JSON.stringify(record[volatileKey])
    const key = `${JSON.stringify(volatileKey)}:`
    const at = text.indexOf(key)
    // A string value holding the key's text has its quotes escaped, so only members can match; still, the key
    // could be a nested member too: then no template.
    if (valueText === undefined || at < 0 || text.indexOf(key, at + 1) >= 0 || !text.startsWith(valueText, at + key.length)) {
      template.unsplittable = true
      return
    }
    found.push({ index, valueStart: at + key.length, valueEnd: at + key.length + valueText.length })
  }
  found.sort((a, b) => a.valueStart - b.valueStart)
  const texts: Buffer[] = []
  let from = 0
  for (const member of found) {
    texts.push(Buffer.from(text.slice(from, member.valueStart), 'utf8'))
    from = member.valueEnd
  }
  texts.push(Buffer.from(text.slice(from), 'utf8'))
  template.parts = { texts, order: found.map((member) => member.index) }
}

function encodeArray(array: readonly unknown[], parts: Buffer[]): void {
  parts.push(OPEN_ARRAY)
  for (let index = 0; index < array.length; index++) {
    if (index > 0) parts.push(COMMA)
    for (const part of encodeElement(array[index])) parts.push(part)
  }
  parts.push(CLOSE_ARRAY)
}

/**
 * The UTF-8 JSON of `body`, byte for byte what `JSON.stringify` makes of it. Long arrays at its top level
 * are assembled element by element, frozen elements that share a template (server/util/json-template.ts)
 * from its text around their one volatile value.
 */
export function jsonBody(body: unknown): Uint8Array<ArrayBuffer> {
  if (!isPlainObject(body) || typeof body.toJSON === 'function') return encode(JSON.stringify(body))
  const entries = Object.entries(body).filter(([, value]) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol')
  if (!entries.some(([, value]) => Array.isArray(value) && value.length > ELEMENT_WISE_ARRAY_LENGTH)) return encode(JSON.stringify(body))
  const parts: Buffer[] = []
  let text = '{'
  entries.forEach(([key, value], index) => {
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:`
    if (Array.isArray(value) && value.length > ELEMENT_WISE_ARRAY_LENGTH) {
      parts.push(Buffer.from(text, 'utf8'))
      text = ''
      encodeArray(value, parts)
    } else {
      text += JSON.stringify(value)
    }
  })
  parts.push(Buffer.from(`${text}}`, 'utf8'))
  return Buffer.concat(parts) as Uint8Array<ArrayBuffer>
}

function encode(text: string): Uint8Array<ArrayBuffer> {
  // Buffer.from encodes UTF-8 about twice as fast as TextEncoder for a multi-megabyte string.
  return Buffer.from(text, 'utf8') as Uint8Array<ArrayBuffer>
}
