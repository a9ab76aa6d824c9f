import 'server-only'
import type { z } from 'zod'
import { ApiError } from '@/lib/api/errors'
import { validationError } from './problem'

/** Request bodies above this are refused before they are read in full. */
export const MAX_BODY_BYTES = 1 << 20

export type BodyRead = { ok: true; value: unknown } | { ok: false; error: ApiError }

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { details: { maxBytes } })
}

/**
 * Reads the body as JSON. Refuses a declared or actual size above `maxBytes` without buffering more than
 * that, bytes that are not UTF-8, and malformed JSON. An empty body reads as `{}`, so a body whose fields
 * are all optional may be left out and a missing required field is reported by name.
 */
export async function readJsonBody(request: Request, maxBytes: number = MAX_BODY_BYTES): Promise<BodyRead> {
  const declared = request.headers.get('content-length')
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) return { ok: false, error: tooLarge(maxBytes) }

  const chunks: Uint8Array[] = []
  let size = 0
  if (request.body) {
    const reader = request.body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.byteLength
        if (size > maxBytes) {
          await reader.cancel().catch(() => undefined)
          return { ok: false, error: tooLarge(maxBytes) }
        }
        chunks.push(value)
      }
    } catch (error) {
      return { ok: false, error: new ApiError('VALIDATION_FAILED', 'the request body could not be read', { cause: error }) }
    }
  }

  const bytes = new Uint8Array(size)
  let position = 0
  for (const chunk of chunks) {
    bytes.set(chunk, position)
    position += chunk.byteLength
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch (error) {
    return { ok: false, error: new ApiError('VALIDATION_FAILED', 'the request body is not valid UTF-8', { cause: error }) }
  }
  if (text.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { ok: false, error: new ApiError('VALIDATION_FAILED', `the request body is not valid JSON: ${reason}`, { cause: error }) }
  }
}

/** Query parameters as a plain object; a repeated parameter keeps its last value. */
export function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {}
  for (const [key, value] of url.searchParams) query[key] = value
  return query
}

/** Parses with `schema`, throwing VALIDATION_FAILED whose message and details name the failing field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, where: 'body' | 'query' | 'params'): z.output<T> {
  const result = schema.safeParse(value)
  if (!result.success) throw validationError(result.error, where)
  return result.data
}
