import { describe, expect, it } from 'vitest'
import { eventData, parseEvents } from './event-stream'

function chunked(...chunks: string[]): Response {
  const encoder = new TextEncoder()
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
        controller.close()
      },
    }),
  )
}

describe('reading server-sent events', () => {
  it('frames events however the chunks fall, skipping comments, joining data lines, keeping ids', async () => {
    const events = []
    for await (const event of parseEvents(chunked(': hello\n\nid: s:1\nevent: oper', 'ation\ndata: {"id":"op-1"}\n\n', 'id: s:2\r\nevent: lag\r\ndata: [1,\r\ndata: 2]\r\n\r\n', 'event: partial\ndata: x'))) events.push(event)
    expect(events).toEqual([
      { id: 's:1', type: 'operation', data: '{"id":"op-1"}' },
      { id: 's:2', type: 'lag', data: '[1,\n2]' },
    ])
    expect(eventData(events[1]!)).toEqual([1, 2])
    expect(eventData({ id: null, type: 'x', data: 'not json' })).toBeNull()
  })
})
