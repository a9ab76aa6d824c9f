import { describe, expect, it } from 'vitest'
import { Operation, OperationEvent } from '@/lib/api/operations'
import { main } from './main'
import { memoryIo } from './testing/memory-io'

/**
 * `--operations --watch ID` to its exit code, the whole command line from argv to exit, against a scripted server:
 * the operation running, then its events on the stream, ending `failed` (exit 1, its partitions' errors on
 * stderr) or `succeeded` (exit 0). A real server cannot be made to fail an operation on demand (it retries what
 * can be retried; cli/e2e/ follows a real failover to exit 0), so the failure is scripted here, every answer
 * checked against the API's own schemas before it is served.
 */

const ID = 'op-7'
const STARTED = 1_764_400_000_000 - 3_000

function operation(status: Operation['status'], step: Operation['partitions'][number]['step'], state: Operation['partitions'][number]['state'], error: string | null = null): Operation {
  return Operation.parse({
    id: ID,
    kind: 'failover',
    mirror: 'dr',
    status,
    startedAt: STARTED,
    finishedAt: status === 'running' ? null : STARTED + 2_000,
    requestedBy: { actor: 'token:operator', role: 'operator' },
    resumedAt: [],
    partitions: [
      { topic: 'orders', partition: 0, step: 'done', state: 'STOPPED', error: null, finishedAt: STARTED + 500 },
      { topic: 'orders', partition: 1, step, state, error, finishedAt: status === 'running' ? null : STARTED + 2_000 },
    ],
  })
}

function event(id: number, change: OperationEvent['change'], value: Operation): string {
  const data = OperationEvent.parse({ ...value, change })
  return `id: ${id}\nevent: operation\ndata: ${JSON.stringify(data)}\n\n`
}

/** A fetch that answers as the server would: the operation as it starts, and an event stream of what follows. */
function scriptedServer(events: string[]): { fetch: typeof fetch; requests: string[] } {
  const requests: string[] = []
  const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  const fake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input))
    requests.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search} ${new Headers(init?.headers).get('authorization') ?? ''}`)
    if (url.pathname === '/api/v1/events') {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const text of events) controller.enqueue(new TextEncoder().encode(text))
          // The stream stays open, as the server's does: the watcher ends it when the operation ends.
        },
      })
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
    }
    if (url.pathname === `/api/v1/operations/${ID}`) return json(operation('running', 'removeFetcher', 'MIRRORING'))
    return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: url.pathname } }), { status: 404, headers: { 'content-type': 'application/json' } })
  }
  return { fetch: fake as typeof fetch, requests }
}

const ENV = { MIRRORBOARD_URL: 'http://mirrorboard.test:3000', MIRRORBOARD_TOKEN: 'secret-operator-token' }

describe('--operations --watch ID: every step, then the exit code of how it ended', () => {
  it('exits 1 when the operation fails, printing the steps done and OPERATION_FAILED', async () => {
    const server = scriptedServer([
      event(1, 'progress', operation('running', 'bumpEpoch', 'STOPPING')),
      event(2, 'progress', operation('running', 'abortTransactions', 'STOPPING', 'KAFKA_STORAGE_ERROR: disk')),
      event(3, 'finished', operation('failed', 'abortTransactions', 'FAILED', 'KAFKA_STORAGE_ERROR: disk')),
    ])
    const io = memoryIo({ env: ENV })
    const code = await main(['--operations', '--watch', ID], io, { fetch: server.fetch })
    expect(code).toBe(1)
    expect(io.out()).toBe(
      [
        `Operation ${ID}: failover of dr, 2 partitions`,
        '07:06:40  orders-0  removeFetcher ✓',
        '07:06:40  orders-0  persistPosition ✓',
        '07:06:40  orders-0  bumpEpoch ✓',
        '07:06:40  orders-0  abortTransactions ✓',
        '07:06:40  orders-0  pidReset ✓',
        '07:06:40  orders-0  STOPPED',
        '07:06:40  orders-1  removeFetcher ✓',
        '07:06:40  orders-1  persistPosition ✓',
        '07:06:40  orders-1  bumpEpoch ✓',
        '07:06:40  orders-1  error at abortTransactions: KAFKA_STORAGE_ERROR: disk',
        `Operation ${ID} failed after 2 s: 1/2 partitions STOPPED`,
        '',
      ].join('\n'),
    )
    expect(io.err()).toBe(`mirrorboard: OPERATION_FAILED: operation ${ID} failed\n`)
    // The stream asked for operation events only; the token went in the header.
    expect(server.requests[0]).toBe('GET /api/v1/events?types=operation Bearer secret-operator-token')
    expect(io.out() + io.err()).not.toContain('secret-operator-token')
  })

  it('exits 0 when it succeeds', async () => {
    const server = scriptedServer([event(1, 'finished', operation('succeeded', 'done', 'STOPPED'))])
    const io = memoryIo({ env: ENV })
    expect(await main(['--operations', '--watch', ID], io, { fetch: server.fetch })).toBe(0)
    expect(io.out()).toMatch(/orders-1 {2}pidReset ✓\n07:06:40 {2}orders-1 {2}STOPPED\nOperation op-7 succeeded: 2\/2 partitions STOPPED in 2 s\n$/)
    expect(io.err()).toBe('')
  })

  it('--json puts the final operation on stdout and the steps on stderr, and still exits 1 on failure', async () => {
    const server = scriptedServer([event(1, 'finished', operation('failed', 'abortTransactions', 'FAILED', 'KAFKA_STORAGE_ERROR: disk'))])
    const io = memoryIo({ env: ENV })
    expect(await main(['--operations', '--watch', ID, '--json'], io, { fetch: server.fetch })).toBe(1)
    expect((JSON.parse(io.out()) as Operation).status).toBe('failed')
    expect(io.err()).toContain('error at abortTransactions: KAFKA_STORAGE_ERROR: disk')
    expect(io.err()).toMatch(/mirrorboard: OPERATION_FAILED: operation op-7 failed\n$/)
  })
})
