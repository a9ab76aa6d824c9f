import { afterEach, describe, expect, it, vi } from 'vitest'
import { EventHub, eventStreamResponse, formatEvent } from './events'

afterEach(() => {
  vi.useRealTimers()
})

function get(headers: Record<string, string> = {}): { request: Request; abort: () => void } {
  const controller = new AbortController()
  return { request: new Request('http://h/api/v1/events', { headers, signal: controller.signal }), abort: () => controller.abort() }
}

/** Reads chunks until `count` SSE events (not comments or retry lines) arrived. */
async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, count: number): Promise<Array<{ id: string; event: string; data: unknown }>> {
  const decoder = new TextDecoder()
  let text = ''
  const events: Array<{ id: string; event: string; data: unknown }> = []
  while (events.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    let end: number
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      const fields = new Map(block.split('\n').filter((line) => !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]))
      if (fields.has('event')) events.push({ id: fields.get('id') ?? '', event: fields.get('event') ?? '', data: JSON.parse(fields.get('data') ?? 'null') })
    }
  }
  return events
}

describe('EventHub', () => {
  it('numbers events monotonically within one stream id', () => {
    const hub = new EventHub({ streamId: 'abc' })
    expect(hub.publish('audit', { n: 1 }).id).toBe('abc:1')
    expect(hub.publish('cluster', { n: 2 }).id).toBe('abc:2')
    expect(hub.lastSequence).toBe(2)
  })

  it('replays what a client missed, and says when it no longer can', () => {
    const hub = new EventHub({ streamId: 's', capacity: 3 })
    for (let n = 1; n <= 5; n++) hub.publish('audit', { n })
    expect(hub.replaySince('s:3')).toEqual({ ok: true, events: [expect.objectContaining({ id: 's:4' }), expect.objectContaining({ id: 's:5' })] })
    expect(hub.replaySince('s:2')).toMatchObject({ ok: true, events: [{ id: 's:3' }, { id: 's:4' }, { id: 's:5' }] })
    expect(hub.replaySince('s:5')).toEqual({ ok: true, events: [] })
    expect(hub.replaySince('s:1')).toEqual({ ok: false, reason: 'eventsDropped' })
    expect(hub.replaySince('other:4')).toEqual({ ok: false, reason: 'serverRestarted' })
    expect(hub.replaySince('s:99')).toEqual({ ok: false, reason: 'serverRestarted' })
    expect(hub.replaySince('garbage')).toEqual({ ok: false, reason: 'serverRestarted' })
  })

  it('keeps delivering to the others when one listener throws', () => {
    const hub = new EventHub()
    const received: number[] = []
    hub.subscribe(() => {
      throw new Error('broken listener')
    })
    hub.subscribe((event) => received.push(event.sequence))
    hub.publish('audit', {})
    hub.publish('audit', {})
    expect(received).toEqual([1, 2])
    expect(hub.subscriberCount).toBe(1)
  })

  it('formats one event per block with id, event and a single data line', () => {
    expect(formatEvent({ id: 's:1', type: 'audit', data: { text: 'a\nb' } })).toBe('id: s:1\nevent: audit\ndata: {"text":"a\\nb"}\n\n')
  })
})

describe('eventStreamResponse', () => {
  it('streams live events and unsubscribes when the client aborts', async () => {
    const hub = new EventHub({ streamId: 's' })
    const { request, abort } = get()
    const response = eventStreamResponse(hub, request)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(hub.subscriberCount).toBe(1)
    const reader = response.body!.getReader()
    hub.publish('audit', { n: 1 })
    hub.publish('cluster', { n: 2 })
    expect(await readEvents(reader, 2)).toEqual([
      { id: 's:1', event: 'audit', data: { n: 1 } },
      { id: 's:2', event: 'cluster', data: { n: 2 } },
    ])
    abort()
    expect(hub.subscriberCount).toBe(0)
    expect((await reader.read()).done).toBe(true)
  })

  it('serialises an event once for every stream that carries it', async () => {
    const hub = new EventHub({ streamId: 's' })
    const readers = [get(), get()].map(({ request }) => eventStreamResponse(hub, request).body!.getReader())
    for (const reader of readers) expect(new TextDecoder().decode((await reader.read()).value)).toBe('retry: 2000\n\n')
    const event = hub.publish('lag', { partitions: [{ topic: 't', partition: 0, offsetLag: 1 }] })
    const [first, second] = await Promise.all(readers.map(async (reader) => (await reader.read()).value))
    expect(first).toBe(second)
    expect(new TextDecoder().decode(first)).toBe(formatEvent(event))
    await Promise.all(readers.map((reader) => reader.cancel()))
  })

  it('unsubscribes when the reader cancels', async () => {
    const hub = new EventHub()
    const response = eventStreamResponse(hub, get().request)
    const second = eventStreamResponse(hub, get().request)
    expect(hub.subscriberCount).toBe(2)
    await response.body!.cancel()
    expect(hub.subscriberCount).toBe(1)
    await second.body!.cancel()
    expect(hub.subscriberCount).toBe(0)
  })

  it('resumes after Last-Event-ID without gaps or repeats', async () => {
    const hub = new EventHub({ streamId: 's' })
    for (let n = 1; n <= 4; n++) hub.publish('audit', { n })
    const { request, abort } = get({ 'last-event-id': 's:2' })
    const reader = eventStreamResponse(hub, request).body!.getReader()
    hub.publish('audit', { n: 5 })
    expect((await readEvents(reader, 3)).map((event) => event.id)).toEqual(['s:3', 's:4', 's:5'])
    abort()
  })

  it('tells a client to refetch when its Last-Event-ID is from another process', async () => {
    const hub = new EventHub({ streamId: 'now' })
    hub.publish('audit', {})
    const { request, abort } = get({ 'last-event-id': 'before:7' })
    const reader = eventStreamResponse(hub, request).body!.getReader()
    expect(await readEvents(reader, 1)).toEqual([{ id: 'now:1', event: 'resync', data: { reason: 'serverRestarted' } }])
    abort()
  })

  it('filters by event type', async () => {
    const hub = new EventHub({ streamId: 's' })
    const { request, abort } = get()
    const reader = eventStreamResponse(hub, request, { types: ['cluster'] }).body!.getReader()
    hub.publish('audit', {})
    hub.publish('cluster', { yes: true })
    expect(await readEvents(reader, 1)).toEqual([{ id: 's:2', event: 'cluster', data: { yes: true } }])
    abort()
  })

  it('sends a heartbeat comment every interval and stops it on abort', async () => {
    vi.useFakeTimers()
    const hub = new EventHub()
    const { request, abort } = get()
    const reader = eventStreamResponse(hub, request, { heartbeatMs: 15_000 }).body!.getReader()
    const decoder = new TextDecoder()
    expect(decoder.decode((await reader.read()).value)).toBe('retry: 2000\n\n')
    vi.advanceTimersByTime(15_000)
    expect(decoder.decode((await reader.read()).value)).toBe(': ping\n\n')
    expect(vi.getTimerCount()).toBe(1)
    abort()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('ends every open stream when the hub closes, and refuses new ones', async () => {
    const hub = new EventHub()
    const reader = eventStreamResponse(hub, get().request).body!.getReader()
    await reader.read()
    hub.close()
    expect(hub.subscriberCount).toBe(0)
    expect((await reader.read()).done).toBe(true)
    const late = eventStreamResponse(hub, get().request).body!.getReader()
    expect(hub.subscriberCount).toBe(0)
    await late.read()
    expect((await late.read()).done).toBe(true)
  })

  it('hands a reader that fell behind its finished operation without the progress deltas it makes moot, and merges waiting deltas', async () => {
    const hub = new EventHub({ streamId: 's' })
    const { request, abort } = get()
    const reader = eventStreamResponse(hub, request).body!.getReader()
    const entry = (partition: number, step: string) => ({ topic: 't', partition, step, state: 'STOPPING', error: null, finishedAt: null })
    const operation = (change: string, partitions: unknown[], partial?: true) => ({ id: 'op', mirror: 'm', status: 'running', change, partitions, ...(partial ? { partial } : {}) })
    // The reader is busy: nothing is read while these are published.
    hub.publish('operation', operation('accepted', [entry(0, 'removeFetcher'), entry(1, 'removeFetcher')]))
    hub.publish('operation', operation('progress', [entry(0, 'bumpEpoch')], true))
    hub.publish('partition', { mirror: 'm', topic: 't', partition: 0 })
    hub.publish('operation', operation('progress', [entry(0, 'pidReset'), entry(1, 'bumpEpoch')], true))
    hub.publish('operation', { ...operation('finished', [entry(0, 'done'), entry(1, 'done')]), status: 'succeeded' })
    hub.publish('operation', operation('progress', [entry(1, 'pidReset')], true))
    hub.publish('operation', { ...operation('progress', [entry(0, 'done')], true), id: 'other' })
    hub.publish('operation', operation('progress', [entry(0, 'done')], true))
    hub.publish('audit', { last: true })
    const events = await readEvents(reader, 6)
    expect(events.map((event) => [event.id, event.event, (event.data as { id?: string; change?: string }).change ?? null])).toEqual([
      ['s:1', 'operation', 'accepted'],
      ['s:3', 'partition', null],
      ['s:5', 'operation', 'finished'],
      ['s:7', 'operation', 'progress'],
      ['s:8', 'operation', 'progress'],
      ['s:9', 'audit', null],
    ])
    expect((events[3]!.data as { id: string }).id).toBe('other')
    // The two deltas after the finish became one, at the newest place and id, the newer step winning.
    expect((events[4]!.data as { partitions: Array<{ partition: number; step: string }> }).partitions.map((p) => [p.partition, p.step])).toEqual([
      [1, 'pidReset'],
      [0, 'done'],
    ])
    abort()
  })

  it('never subscribes for a request that is already aborted', () => {
    const hub = new EventHub()
    const { request, abort } = get()
    abort()
    eventStreamResponse(hub, request)
    expect(hub.subscriberCount).toBe(0)
  })

  it('caps open streams per owner (429) and in total (503), giving places back as streams end', async () => {
    const hub = new EventHub({ maxStreamsPerOwner: 2, maxStreams: 3 })
    const a1 = get()
    eventStreamResponse(hub, a1.request, { owner: 'session:a' })
    const a2 = eventStreamResponse(hub, get().request, { owner: 'session:a' })
    expect(() => eventStreamResponse(hub, get().request, { owner: 'session:a' })).toThrow(expect.objectContaining({ code: 'TOO_MANY_REQUESTS' }))
    eventStreamResponse(hub, get().request, { owner: 'session:b' })
    expect(() => eventStreamResponse(hub, get().request, { owner: 'session:c' })).toThrow(expect.objectContaining({ code: 'SERVER_BUSY' }))
    expect(hub.openStreams).toBe(3)
    a1.abort()
    await a2.body!.cancel()
    expect(hub.openStreams).toBe(1)
    eventStreamResponse(hub, get().request, { owner: 'session:a' })
    eventStreamResponse(hub, get().request, { owner: 'session:c' })
    expect(hub.openStreams).toBe(3)
    hub.close()
    expect(hub.openStreams).toBe(0)
  })
})
