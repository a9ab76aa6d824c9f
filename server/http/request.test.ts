import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isApiError } from '@/lib/api/errors'
import { MAX_BODY_BYTES, parseInput, queryObject, readJsonBody } from './request'

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request('http://localhost/api/v1/x', { method: 'POST', body, headers, duplex: 'half' } as RequestInit)
}

function streamOf(total: number, chunk = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close()
      const size = Math.min(chunk, total - sent)
      sent += size
      controller.enqueue(new Uint8Array(size).fill(0x20))
    },
  })
  return { stream, pulled: () => sent }
}

describe('readJsonBody', () => {
  it('parses JSON and reads an empty body as {}', async () => {
    expect(await readJsonBody(post('{"a":[1,2]}'))).toEqual({ ok: true, value: { a: [1, 2] } })
    expect(await readJsonBody(post(''))).toEqual({ ok: true, value: {} })
    expect(await readJsonBody(post(null))).toEqual({ ok: true, value: {} })
  })

  it('refuses malformed JSON with VALIDATION_FAILED', async () => {
    for (const text of ['{', '{"a":}', 'nope', '{"a":1}}', "{'a':1}"]) {
      const result = await readJsonBody(post(text))
      expect(result.ok).toBe(false)
      if (!result.ok) {
        expect(result.error.code).toBe('VALIDATION_FAILED')
        expect(result.error.message).toMatch(/not valid JSON/)
      }
    }
  })

  it('refuses bytes that are not UTF-8', async () => {
    const result = await readJsonBody(post(new Uint8Array([0x22, 0xff, 0xfe, 0x22])))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.message).toMatch(/UTF-8/)
  })

  it('refuses a declared length above the cap without reading the body', async () => {
    const { stream, pulled } = streamOf(4 * MAX_BODY_BYTES)
    const result = await readJsonBody(post(stream, { 'content-length': String(4 * MAX_BODY_BYTES) }))
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.code).toBe('PAYLOAD_TOO_LARGE')
      expect(result.error.message).toContain(String(MAX_BODY_BYTES))
    }
    expect(pulled()).toBeLessThanOrEqual(2 * 64 * 1024)
  })

  it('stops reading an undeclared body once it passes the cap', async () => {
    const { stream, pulled } = streamOf(10 * MAX_BODY_BYTES)
    const result = await readJsonBody(post(stream))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.code).toBe('PAYLOAD_TOO_LARGE')
    expect(pulled()).toBeLessThan(MAX_BODY_BYTES + 3 * 64 * 1024)
  })

  it('accepts a body of exactly the cap', async () => {
    const text = `"${'x'.repeat(MAX_BODY_BYTES - 2)}"`
    const result = await readJsonBody(post(text))
    expect(result.ok).toBe(true)
  })
})

describe('parseInput', () => {
  it('returns the parsed value or throws VALIDATION_FAILED naming where', () => {
    const schema = z.object({ n: z.number() })
    expect(parseInput(schema, { n: 1 }, 'body')).toEqual({ n: 1 })
    try {
      parseInput(schema, { n: 'x' }, 'query')
      expect.unreachable()
    } catch (error) {
      expect(isApiError(error, 'VALIDATION_FAILED')).toBe(true)
      if (isApiError(error)) expect(error.message).toMatch(/^query\.n: /)
    }
  })

  it('reads repeated query parameters as their last value', () => {
    expect(queryObject(new URL('http://h/x?a=1&b=2&a=3'))).toEqual({ a: '3', b: '2' })
  })
})
