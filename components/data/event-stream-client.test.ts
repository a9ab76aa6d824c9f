import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { syncCacheWithEvents } from './cache-sync'
import { EventStreamClient, REOPEN_AFTER_MS } from './event-stream-client'
import { queryKeys } from './query-keys'
import { mirrorEndpoints } from '@/lib/api/endpoints'

/** The browser's EventSource, as far as the client uses it: records what was asked, lets the test send events. */
class FakeEventSource {
  static readonly CLOSED = 2
  static opened: FakeEventSource[] = []
  readyState = 1
  closed = false
  onopen: (() => void) | null = null
  onerror: (() => void) | null = null
  private readonly handlers = new Map<string, (event: { data: string; lastEventId: string }) => void>()

  constructor(readonly url: string) {
    FakeEventSource.opened.push(this)
  }

  addEventListener(type: string, handler: (event: { data: string; lastEventId: string }) => void): void {
    this.handlers.set(type, handler)
  }

  close(): void {
    this.closed = true
    this.readyState = FakeEventSource.CLOSED
  }

  /** What the server would send, if this stream asked for the type (the server filters by `types`). */
  send(type: string, id: string, data: unknown): void {
    if (!this.closed) this.handlers.get(type)?.({ data: JSON.stringify(data), lastEventId: id })
  }

  get query(): URLSearchParams {
    return new URL(this.url, 'http://localhost').searchParams
  }
}

const latest = () => FakeEventSource.opened.at(-1)!

beforeEach(() => {
  vi.useFakeTimers()
  FakeEventSource.opened = []
  vi.stubGlobal('EventSource', FakeEventSource)
})

afterEach(() => {
  vi.unstubAllGlobals()
  vi.useRealTimers()
})

describe('EventStreamClient: the stream carries only the types listened to', () => {
  it('opens for resync alone, then again with a new type and the last id seen, and drops it when no one listens', () => {
    const client = new EventStreamClient()
    client.start()
    expect(latest().query.get('types')).toBe('resync')

    const seen: unknown[] = []
    const stopOperation = client.subscribe('operation', (data) => seen.push(data))
    vi.advanceTimersByTime(REOPEN_AFTER_MS)
    expect(FakeEventSource.opened).toHaveLength(2)
    expect(FakeEventSource.opened[0]!.closed).toBe(true)
    expect(latest().query.get('types')).toBe('operation,resync')

    latest().send('operation', 's:7', { id: 'op-1' })
    expect(seen).toEqual([{ id: 'op-1' }])
    client.subscribeArrival('lag', () => {})
    const stopPartition = client.subscribe('partition', () => {})
    vi.advanceTimersByTime(REOPEN_AFTER_MS)
    // One reopen for both listeners, resuming after the last event the tab saw.
    expect(FakeEventSource.opened).toHaveLength(3)
    expect(latest().query.get('types')).toBe('partition,lag,operation,resync')
    expect(latest().query.get('lastEventId')).toBe('s:7')

    stopPartition()
    stopOperation()
    vi.advanceTimersByTime(REOPEN_AFTER_MS)
    expect(latest().query.get('types')).toBe('lag,resync')
    client.stop()
  })

  it('does not reopen when listeners come and go without changing the types', () => {
    const client = new EventStreamClient()
    const stopFirst = client.subscribe('partition', () => {})
    client.start()
    expect(latest().query.get('types')).toBe('partition,resync')
    const stopSecond = client.subscribe('partition', () => {})
    stopFirst()
    vi.advanceTimersByTime(REOPEN_AFTER_MS * 5)
    expect(FakeEventSource.opened).toHaveLength(1)
    stopSecond()
    client.stop()
    vi.advanceTimersByTime(REOPEN_AFTER_MS * 5)
    expect(FakeEventSource.opened).toHaveLength(1)
  })
})

describe('syncCacheWithEvents: listens while a query it updates is observed', () => {
  it('asks for partition events only while a mirror query is on screen', async () => {
    const queryClient = new QueryClient()
    const client = new EventStreamClient()
    const stopSync = syncCacheWithEvents(queryClient, client)
    client.start()
    expect(latest().query.get('types')).toBe('resync')

    const observer = new QueryObserver(queryClient, {
      queryKey: queryKeys.request(mirrorEndpoints.getMirror, { mirror: 'east' }),
      queryFn: () => new Promise<never>(() => {}),
    })
    const unsubscribe = observer.subscribe(() => {})
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_MS)
    expect(latest().query.get('types')?.split(',')).toContain('partition')

    // A partition event marks the mirror stale (after the coalescing delay).
    latest().send('partition', 's:3', { mirror: 'east', topic: 'orders', partition: 0 })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(queryClient.getQueryState(queryKeys.request(mirrorEndpoints.getMirror, { mirror: 'east' }))?.isInvalidated).toBe(true)

    unsubscribe()
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_MS)
    expect(latest().query.get('types')).toBe('resync')
    expect(latest().query.get('lastEventId')).toBe('s:3')
    stopSync()
    client.stop()
  })
})
