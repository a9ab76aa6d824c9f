import { systemEndpoints } from '@/lib/api/endpoints'
import type { EventType } from '@/lib/api/events'
import type { Api } from './api'
import { UnreachableError } from './exit'

/**
 * The server's event stream (GET /events, server-sent events) read over fetch, as Node has no EventSource: only
 * the types asked for, each event as it comes. A dropped connection is opened again with the last event id, so
 * the server replays what was missed (or sends `resync` when it no longer holds it); after RECONNECT_FOR_MS
 * without a connection the server counts as unreachable.
 */

export interface StreamEvent {
  readonly id: string | null
  readonly type: string
  readonly data: string
}

const RECONNECT_DELAY_MS = 500
const RECONNECT_FOR_MS = 30_000

export class EventStream {
  private lastEventId: string | undefined
  private response: Response | null = null

  private constructor(
    private readonly api: Api,
    private readonly types: readonly EventType[],
    private readonly signal: AbortSignal,
  ) {}

  /** Connected once this resolves: whatever happens after it is in the stream. */
  static async open(api: Api, types: readonly EventType[], signal: AbortSignal): Promise<EventStream> {
    const stream = new EventStream(api, types, signal)
    stream.response = await stream.connect()
    return stream
  }

  private connect(): Promise<Response> {
    return this.api.stream(systemEndpoints.events, { query: { types: this.types.join(','), lastEventId: this.lastEventId }, signal: this.signal })
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamEvent> {
    for (;;) {
      const response = this.response ?? (await this.reconnect())
      this.response = null
      try {
        for await (const event of parseEvents(response)) {
          if (event.id !== null) this.lastEventId = event.id
          yield event
        }
      } catch (error) {
        if (this.signal.aborted) throw error
        // The connection broke mid-stream: open it again below.
      }
      if (this.signal.aborted) return
    }
  }

  private async reconnect(): Promise<Response> {
    const deadline = Date.now() + RECONNECT_FOR_MS
    for (;;) {
      await sleep(RECONNECT_DELAY_MS, this.signal)
      try {
        return await this.connect()
      } catch (error) {
        if (this.signal.aborted || !(error instanceof UnreachableError) || Date.now() > deadline) throw error
      }
    }
  }
}

/** The events of one connection, as the SSE format frames them: fields up to a blank line; `:` lines are comments. */
export async function* parseEvents(response: Response): AsyncGenerator<StreamEvent> {
  if (response.body === null) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n')
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const event = frame(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (event !== null) yield event
        end = buffer.indexOf('\n\n')
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/** The event's JSON data; null when it is not JSON (then no schema accepts it). */
export function eventData(event: StreamEvent): unknown {
  try {
    return JSON.parse(event.data)
  } catch {
    return null
  }
}

function frame(block: string): StreamEvent | null {
  let id: string | null = null
  let type = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'id') id = value
    else if (field === 'event') type = value
    else if (field === 'data') data.push(value)
  }
  return data.length === 0 ? null : { id, type, data: data.join('\n') }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })
}
