import { expect, type APIRequestContext, type APIResponse } from '@playwright/test'

/** Helpers shared by the HTTP suites: tokens, typed answers, setup calls and a minimal event-stream client. */

export const operatorToken = process.env.E2E_OPERATOR_TOKEN ?? ''
export const viewerToken = process.env.E2E_VIEWER_TOKEN ?? ''
export const asOperator = { Authorization: `Bearer ${operatorToken}` }
export const asViewer = { Authorization: `Bearer ${viewerToken}` }

let counter = 0
/**
 * A name no other test (or earlier run against the same server) has used. The process id keeps apart the desktop and
 * phone runs, which share the Kafka test brokers and may name a topic in the same millisecond.
 */
/**
 * A client address of its own, named the way the proxy the e2e server trusts names one (MIRRORBOARD_TRUST_PROXY=1,
 * playwright.config.ts). Refused requests without credentials are collapsed in the audit log per client address
 * and minute, so a journey that reads its own anonymous refusals back sends each as a new client.
 */
export function asNewClient(): Record<string, string> {
  const octet = () => Math.floor(Math.random() * 254) + 1
  return { 'X-Forwarded-For': `10.${octet()}.${octet()}.${octet()}` }
}

export function unique(prefix: string): string {
  counter += 1
  return `${prefix}-${Date.now().toString(36)}-${process.pid.toString(36)}${counter}`
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> }
}

export async function expectError(response: APIResponse, status: number, code: string): Promise<ErrorBody> {
  const text = await response.text()
  expect(response.status(), `${response.url()} ${text}`).toBe(status)
  const body = JSON.parse(text) as ErrorBody
  expect(body.error.code, text).toBe(code)
  expect(body.error.message.length).toBeGreaterThan(0)
  return body
}

export async function okJson<T>(response: APIResponse, status = 200): Promise<T> {
  const text = await response.text()
  expect(response.status(), `${response.url()} ${text}`).toBe(status)
  return JSON.parse(text) as T
}

export async function createCluster(request: APIRequestContext, name: string, extra: Record<string, unknown> = {}): Promise<void> {
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name, kind: 'embedded', ...extra } }), 201)
}

export async function createTopic(request: APIRequestContext, cluster: string, name: string, partitions = 1): Promise<void> {
  await okJson(await request.post(`/api/v1/clusters/${cluster}/topics`, { headers: asOperator, data: { name, partitions } }), 201)
}

export interface StreamEvent {
  id: string
  event: string
  receivedAt: number
  data: Record<string, unknown> & {
    mirror?: string
    topic?: string
    partition?: number
    from?: string
    to?: string
    action?: string
    target?: string
    id?: number
    cluster?: string
    change?: string
    reason?: string
  }
}

export interface EventStream {
  /** Resolves once the server answered the stream request with 200. */
  ready: Promise<void>
  received: StreamEvent[]
  /** The first event (already received or still to come) that matches. */
  next(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>
  close(): void
}

/** A minimal EventSource over fetch, as a viewer: events are parsed as they arrive. */
export function openStream(baseURL: string, lastEventId?: string): EventStream {
  const controller = new AbortController()
  const received: StreamEvent[] = []
  const waiters: Array<{ predicate: (event: StreamEvent) => boolean; resolve: (event: StreamEvent) => void }> = []
  const headers: Record<string, string> = { ...asViewer, Accept: 'text/event-stream' }
  if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId
  let settleReady: (error?: unknown) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => (settleReady = (error) => (error === undefined ? resolve() : reject(error))))
  // A test that never awaits `ready` must not fail on an unhandled rejection after it closed the stream.
  ready.catch(() => undefined)
  void (async () => {
    const response = await fetch(`${baseURL}/api/v1/events`, { headers, signal: controller.signal })
    if (response.status !== 200 || !response.body) throw new Error(`GET /api/v1/events answered ${response.status}`)
    settleReady()
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields = new Map<string, string>()
        for (const line of block.split('\n')) if (!line.startsWith(':') && line.includes(': ')) fields.set(line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2))
        const type = fields.get('event')
        if (type === undefined) continue
        const event: StreamEvent = { id: fields.get('id') ?? '', event: type, receivedAt: Date.now(), data: JSON.parse(fields.get('data') ?? 'null') as StreamEvent['data'] }
        received.push(event)
        for (const waiter of waiters.splice(0)) {
          if (waiter.predicate(event)) waiter.resolve(event)
          else waiters.push(waiter)
        }
      }
    }
  })().catch((error: unknown) => settleReady(error ?? new Error('event stream failed')))
  return {
    ready,
    received,
    next: (predicate) => {
      const found = received.find(predicate)
      if (found) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ predicate, resolve }))
    },
    close: () => controller.abort(),
  }
}
