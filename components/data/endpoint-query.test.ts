import { hydrate, QueryClient, QueryObserver } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { clusterEndpoints, mirrorEndpoints, systemEndpoints } from '@/lib/api/endpoints'
import { isApiError } from '@/lib/api/errors'
import type { Operation } from '@/lib/api/operations'
import { syncCacheWithEvents } from './cache-sync'
import { endpointAnswerQuery, endpointKey, endpointPagesQuery, endpointQuery } from './endpoint-query'
import { EventStreamClient, REOPEN_AFTER_MS } from './event-stream-client'
import { dehydrateAnswers } from './prefetch'
import { queryKeys } from './query-keys'

/** What the stubbed fetch was asked, and the answers it gives in order. */
let requests: Array<{ url: string; method: string; body: unknown }> = []
let answers: Array<{ status: number; body: unknown }> = []

beforeEach(() => {
  requests = []
  answers = []
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    requests.push({ url, method: init.method ?? 'GET', body: init.body === undefined ? undefined : JSON.parse(String(init.body)) })
    const answer = answers.shift() ?? { status: 500, body: { error: { code: 'INTERNAL', message: 'no answer staged' } } }
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } })
  })
})

afterEach(() => {
  vi.unstubAllGlobals()
  vi.useRealTimers()
})

const operation: Operation = {
  id: 'op-1',
  kind: 'failover',
  mirror: 'dr',
  status: 'running',
  startedAt: 1_000,
  finishedAt: null,
  requestedBy: null,
  resumedAt: [],
  partitions: [
    { topic: 'orders', partition: 0, step: 'removeFetcher', state: 'MIRRORING', error: null, finishedAt: null },
    { topic: 'orders', partition: 1, step: 'removeFetcher', state: 'MIRRORING', error: null, finishedAt: null },
  ],
}

describe('endpointQuery: the key, the request and the answer from the catalog entry', () => {
  it('keys a read as [operationId, params, query] without the undefined query values, and asks the catalog URL', async () => {
    const options = endpointQuery(mirrorEndpoints.listOperations, { query: { status: 'running', mirror: undefined } })
    expect(options.queryKey).toEqual(['listOperations', {}, { status: 'running' }])
    expect(endpointKey(clusterEndpoints.listPartitions, { params: { cluster: 'east', topic: 'orders' } })).toEqual(['listPartitions', { cluster: 'east', topic: 'orders' }, {}])

    answers.push({ status: 200, body: { operations: [operation] } })
    const queryClient = new QueryClient()
    const data = await queryClient.fetchQuery(options)
    expect(requests).toEqual([{ url: '/api/v1/operations?status=running', method: 'GET', body: undefined }])
    expect(data.operations[0]?.id).toBe('op-1')
    // The typed key reads the same entry back.
    expect(queryClient.getQueryData(options.queryKey)?.operations).toHaveLength(1)
  })

  it('fails with the API’s code and message, and with the schema’s refusal of an answer that breaks the contract', async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    answers.push({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'no mirror named dr' } } })
    const refused = await queryClient.fetchQuery(endpointQuery(mirrorEndpoints.getMirror, { params: { mirror: 'dr' } })).catch((error: unknown) => error)
    expect(isApiError(refused) && refused.code).toBe('NOT_FOUND')
    expect(requests[0]?.url).toBe('/api/v1/mirrors/dr')

    answers.push({ status: 200, body: { operations: [{ id: 'op-1' }] } })
    await expect(queryClient.fetchQuery(endpointQuery(mirrorEndpoints.listOperations))).rejects.toThrow()
  })

  it('lands a page’s server prefetch under the key the client hook reads, so the first render needs no request', () => {
    const state = dehydrateAnswers([{ endpoint: mirrorEndpoints.getOperation, params: { id: 'op-1' }, value: operation }])
    const queryClient = new QueryClient()
    hydrate(queryClient, state)
    expect(queryClient.getQueryData(endpointQuery(mirrorEndpoints.getOperation, { params: { id: 'op-1' } }).queryKey)).toEqual(operation)
    expect(requests).toHaveLength(0)
  })

  it('takes the answer of another status for a dry run, and refuses the real request’s answer as data', async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const body = { name: 'back', sourceCluster: 'west', destinationCluster: 'east', topics: ['orders'], dryRun: true }
    const dryRun = endpointAnswerQuery(mirrorEndpoints.createMirror, 200, { body })
    // The body is what the answer depends on: it is in the key.
    expect(dryRun.queryKey).toEqual(['createMirror', {}, {}, body])
    answers.push({ status: 200, body: { plan: { mirror: 'back', partitions: [] } } })
    expect((await queryClient.fetchQuery(dryRun)).plan.mirror).toBe('back')
    expect(requests[0]).toEqual({ url: '/api/v1/mirrors', method: 'POST', body })

    answers.push({ status: 202, body: { operation: 'op-2', plan: { mirror: 'dr', gates: [], partitions: [] } } })
    const failover = endpointAnswerQuery(mirrorEndpoints.failover, 200, { params: { mirror: 'dr' }, body: { dryRun: true } })
    await expect(queryClient.fetchQuery(failover)).rejects.toThrow(/failover answered 202, not 200/)
  })

  it('reads a list a page at a time, each page asking below the last id seen, under one key', async () => {
    const queryClient = new QueryClient()
    const entry = (id: number) => ({ id, at: id, actor: 'token:operator', role: 'operator', action: 'cluster.create', target: '/clusters', outcome: 'ok', dryRun: false, request: null, error: null })
    const pages = endpointPagesQuery(systemEndpoints.audit, { query: { outcome: 'ok', limit: 2 } }, { pageParam: 'before', nextPage: (page) => (page.entries.length < 2 ? undefined : page.entries.at(-1)?.id) })
    expect(pages.queryKey).toEqual(queryKeys.request(systemEndpoints.audit, {}, { outcome: 'ok', limit: 2 }))
    answers.push({ status: 200, body: { entries: [entry(9), entry(8)] } }, { status: 200, body: { entries: [entry(7)] } })
    const both = await queryClient.fetchInfiniteQuery({ ...pages, pages: 2 })
    expect(both.pageParams).toEqual([undefined, 8])
    expect(both.pages.map((page) => page.entries.map((found) => found.id))).toEqual([[9, 8], [7]])
    expect(requests.map((request) => request.url)).toEqual(['/api/v1/audit?outcome=ok&limit=2', '/api/v1/audit?outcome=ok&limit=2&before=8'])
  })
})

/** The browser's EventSource as cache-sync's client uses it: the test sends the events. */
class FakeEventSource {
  static opened: FakeEventSource[] = []
  readyState = 1
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
    this.readyState = 2
  }
  send(type: string, id: string, data: unknown): void {
    this.handlers.get(type)?.({ data: JSON.stringify(data), lastEventId: id })
  }
}

describe('cache-sync over the generated keys', () => {
  beforeEach(() => {
    vi.useFakeTimers()
    FakeEventSource.opened = []
    vi.stubGlobal('EventSource', FakeEventSource)
  })

  it('patches a progress event into the operation a hook reads, and invalidates a topic’s partitions on a cluster event', async () => {
    const queryClient = new QueryClient()
    const client = new EventStreamClient()
    const stopSync = syncCacheWithEvents(queryClient, client)
    client.start()
    const read = endpointQuery(mirrorEndpoints.getOperation, { params: { id: 'op-1' } })
    queryClient.setQueryData(read.queryKey, operation)
    const partitions = endpointQuery(clusterEndpoints.listPartitions, { params: { cluster: 'east', topic: 'orders' } })
    queryClient.setQueryData(partitions.queryKey, { partitions: [] })
    const never = () => new Promise<never>(() => {})
    const observers = [new QueryObserver(queryClient, { ...read, queryFn: never, staleTime: Infinity }), new QueryObserver(queryClient, { ...partitions, queryFn: never, staleTime: Infinity })]
    const stops = observers.map((observer) => observer.subscribe(() => {}))
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_MS)
    const stream = FakeEventSource.opened.at(-1)!
    expect(new URL(stream.url, 'http://localhost').searchParams.get('types')?.split(',')).toEqual(expect.arrayContaining(['operation', 'cluster']))

    const moved = { ...operation.partitions[1]!, step: 'bumpEpoch', state: 'STOPPING' }
    const { partitions: _all, ...fields } = operation
    stream.send('operation', 's:1', { ...fields, partitions: [moved], change: 'progress', partial: true })
    // The operation event's schema is loaded with the first such event: the cache is written once it is.
    await vi.waitFor(() => expect(queryClient.getQueryData(read.queryKey)?.partitions).toEqual([operation.partitions[0], moved]))

    stream.send('cluster', 's:2', { cluster: 'east', change: 'recordsAppended', topic: 'orders', partitions: [0] })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(queryClient.getQueryState(partitions.queryKey)?.isInvalidated).toBe(true)
    // A cluster event leaves the operation as the operation events wrote it.
    expect(queryClient.getQueryState(read.queryKey)?.isInvalidated).toBe(false)

    for (const stop of stops) stop()
    stopSync()
    client.stop()
  })

  it('reads the incident timeline of the mirror whose partition moved again within a second, not at its next poll', async () => {
    const queryClient = new QueryClient()
    const client = new EventStreamClient()
    const stopSync = syncCacheWithEvents(queryClient, client)
    client.start()
    const timelineOf = (mirror: string) => endpointQuery(mirrorEndpoints.mirrorTimeline, { params: { mirror } })
    for (const mirror of ['dr', 'other']) queryClient.setQueryData(timelineOf(mirror).queryKey, { entries: [] })
    const never = () => new Promise<never>(() => {})
    const observers = ['dr', 'other'].map((mirror) => new QueryObserver(queryClient, { ...timelineOf(mirror), queryFn: never, staleTime: Infinity }))
    const stops = observers.map((observer) => observer.subscribe(() => {}))
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_MS)
    const stream = FakeEventSource.opened.at(-1)!
    expect(new URL(stream.url, 'http://localhost').searchParams.get('types')?.split(',')).toContain('partition')

    stream.send('partition', 's:1', { mirror: 'dr', topic: 'orders', partition: 0, from: 'MIRRORING', to: 'FAILED' })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(queryClient.getQueryState(timelineOf('dr').queryKey)?.isInvalidated).toBe(true)
    expect(queryClient.getQueryState(timelineOf('other').queryKey)?.isInvalidated).toBe(false)

    for (const stop of stops) stop()
    stopSync()
    client.stop()
  })

  it('reads the mirror list again once per five seconds of lag events, and within a second of a state change', async () => {
    const queryClient = new QueryClient()
    const client = new EventStreamClient()
    const stopSync = syncCacheWithEvents(queryClient, client)
    client.start()
    const list = endpointQuery(mirrorEndpoints.listMirrors)
    let reads = 0
    const observer = new QueryObserver(queryClient, { ...list, queryFn: () => ({ mirrors: [reads++] }) as never, staleTime: Infinity })
    const stop = observer.subscribe(() => {})
    await vi.advanceTimersByTimeAsync(REOPEN_AFTER_MS)
    expect(reads).toBe(1)
    const stream = FakeEventSource.opened.at(-1)!
    expect(new URL(stream.url, 'http://localhost').searchParams.get('types')?.split(',')).toEqual(expect.arrayContaining(['lag', 'partition']))

    // Ten seconds of a lag event a second (what every mirror's sampler sends): two reads, not ten.
    for (let second = 0; second < 10; second++) {
      stream.send('lag', `s:${second}`, { mirror: 'dr', partitions: [] })
      await vi.advanceTimersByTimeAsync(1_000)
    }
    expect(reads).toBe(1 + 2)
    // A partition's state change is on the overview within a second.
    stream.send('partition', 's:10', { mirror: 'dr', topic: 'orders', partition: 0, from: 'MIRRORING', to: 'FAILED' })
    await vi.advanceTimersByTimeAsync(1_000)
    expect(reads).toBe(1 + 3)

    stop()
    stopSync()
    client.stop()
  })
})
