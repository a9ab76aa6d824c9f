import 'server-only'
import { yieldToEventLoop } from '@/server/util/cooperative'

/**
 * An array at the top of a body longer than this goes out in pieces. Serializing a 10,000-partition list
 * (4.6 MB) in one call holds the event loop ~25 ms, and no byte leaves until the last one is ready; in
 * pieces, the first bytes are compressed and sent while the rest is serialized, and the fetcher and other
 * requests get turns in between.
 */
export const STREAMED_ARRAY_LENGTH = 2_000
/** Elements per piece: ~230 KB of partition JSON, a few ms of serialization. */
export const PIECE_LENGTH = 500

type Segment = { text: string } | { array: readonly unknown[] }

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value) as unknown
  return prototype === Object.prototype || prototype === null
}

/**
 * The body as JSON text segments and long arrays, or null when nothing in it is long enough to stream.
 * Only the top level is looked at: the long lists of the API (partitions, lag series, plans) are all there.
 */
function segmentsOf(body: unknown): Segment[] | null {
  if (!isPlainObject(body) || typeof body.toJSON === 'function') return null
  const entries = Object.entries(body).filter(([, value]) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol')
  if (!entries.some(([, value]) => Array.isArray(value) && value.length > STREAMED_ARRAY_LENGTH)) return null
  const segments: Segment[] = []
  let text = '{'
  entries.forEach(([key, value], index) => {
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:`
    if (Array.isArray(value) && value.length > STREAMED_ARRAY_LENGTH) {
      segments.push({ text }, { array: value })
      text = ''
    } else {
      text += JSON.stringify(value)
    }
  })
  segments.push({ text: `${text}}` })
  return segments
}

/**
 * The UTF-8 JSON of `body`, byte for byte what `JSON.stringify` makes of it: a buffer, or for a body with a
 * long array at its top, a stream that serializes that array a piece at a time as the client takes it. The
 * array is not copied; handlers hand over lists built for the response, which nothing changes afterwards.
 */
export function jsonBody(body: unknown): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> {
  const segments = segmentsOf(body)
  if (segments === null) return encode(JSON.stringify(body))
  let segment = 0
  let element = 0
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      let text = ''
      let sliced = false
      // A piece is one slice of an array with the text around it, up to the next slice.
      while (segment < segments.length) {
        const current = segments[segment]!
        if ('text' in current) {
          text += current.text
          segment += 1
          continue
        }
        if (sliced) break
        const end = Math.min(current.array.length, element + PIECE_LENGTH)
        const slice = JSON.stringify(current.array.slice(element, end))
        text += `${element === 0 ? '[' : ','}${slice.slice(1, -1)}`
        sliced = true
        element = end
        if (element < current.array.length) break
        text += ']'
        segment += 1
        element = 0
      }
      if (text !== '') controller.enqueue(encode(text))
      if (segment === segments.length) controller.close()
      // Pieces are pulled from promise callbacks, which never let timers or sockets in; this does.
      else await yieldToEventLoop()
    },
  })
}

function encode(text: string): Uint8Array<ArrayBuffer> {
  // Buffer.from encodes UTF-8 about twice as fast as TextEncoder for a multi-megabyte string.
  return Buffer.from(text, 'utf8') as Uint8Array<ArrayBuffer>
}
