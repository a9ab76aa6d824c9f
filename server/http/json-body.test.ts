import { describe, expect, it } from 'vitest'
import { jsonBody, PIECE_LENGTH, STREAMED_ARRAY_LENGTH } from './json-body'

async function pieces(body: ReturnType<typeof jsonBody>): Promise<string[]> {
  if (!(body instanceof ReadableStream)) return [Buffer.from(body).toString('utf8')]
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const texts: string[] = []
  for (let read = await reader.read(); !read.done; read = await reader.read()) texts.push(decoder.decode(read.value))
  return texts
}

const long = (length: number) => Array.from({ length }, (_, n) => ({ topic: `orders-"${n % 7}"\u2028é`, partition: n, lastTruncation: null, skipped: undefined }))

describe('jsonBody', () => {
  it('makes exactly what JSON.stringify makes, whether or not it streams', async () => {
    const bodies: unknown[] = [
      { partitions: long(STREAMED_ARRAY_LENGTH) },
      { partitions: long(STREAMED_ARRAY_LENGTH + 1) },
      { partitions: long(3 * PIECE_LENGTH + STREAMED_ARRAY_LENGTH), count: 3, gone: undefined },
      { first: long(STREAMED_ARRAY_LENGTH + 7), middle: { a: [1, 2] }, second: [...long(STREAMED_ARRAY_LENGTH + 1), undefined, null] },
      { gone: undefined, series: long(PIECE_LENGTH * 5) },
      [long(STREAMED_ARRAY_LENGTH + 1)],
      null,
      'text',
    ]
    for (const body of bodies) expect((await pieces(jsonBody(body))).join('')).toBe(JSON.stringify(body))
  })

  it('streams a long top-level array a piece at a time and keeps short bodies whole', async () => {
    expect(jsonBody({ partitions: long(STREAMED_ARRAY_LENGTH) })).not.toBeInstanceOf(ReadableStream)
    const streamed = await pieces(jsonBody({ partitions: long(10_000) }))
    expect(streamed.length).toBe(10_000 / PIECE_LENGTH)
    expect(streamed[0]!.startsWith('{"partitions":[{"topic"')).toBe(true)
    expect(streamed.at(-1)!.endsWith('}]}')).toBe(true)
  })

  it('lets the event loop in between pieces', async () => {
    const stream = jsonBody({ partitions: long(10_000) }) as ReadableStream<Uint8Array>
    const reader = stream.getReader()
    let timerRan = false
    setTimeout(() => (timerRan = true), 0)
    let piecesBeforeTimer = 0
    for (;;) {
      const { done } = await reader.read()
      if (done || timerRan) break
      piecesBeforeTimer += 1
    }
    // Reads resolved by promise callbacks alone would run all 20 pieces before the timer.
    expect(timerRan).toBe(true)
    expect(piecesBeforeTimer).toBeLessThan(10_000 / PIECE_LENGTH)
  })
})
