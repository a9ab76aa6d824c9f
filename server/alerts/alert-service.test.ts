import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MirrorFigures } from '@/lib/alerts/figures'
import { CALM_FIGURES as calm, ONE_FAILED_FIGURES as failed } from '@/lib/alerts/testing/figures'
import type { Alert } from '@/lib/api/alerts'
import { createPino, wrap } from '@/server/observability/logger'
import { AlertService } from './alert-service'

interface Received {
  path: string
  body: unknown
  authorization?: string
}

/** A loopback receiver answering `status()` to every POST, keeping what it got. */
async function receiver(status: () => number = () => 200): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = []
  const server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: JSON.parse(text) as unknown, authorization: request.headers.authorization })
      response.statusCode = status()
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server }
}

/** Waits for a delivery over loopback HTTP: 30 s at most, since a loaded machine (load 20 on 2 cores) took over 4 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  if (!condition()) throw new Error(`timed out waiting for ${what}`)
}

let dataDir: string
let clock: number
let figures: MirrorFigures[]
let published: Alert[]
let logLines: string[]
let services: AlertService[]
let servers: Server[]
const own = [new URL('http://127.0.0.1:3999/api/v1/alerts/receivers')]

async function open(): Promise<AlertService> {
  const service = await AlertService.open({
    dataDir,
    figures: () => figures,
    knownMirror: (name) => name === 'dr',
    publish: (alert) => published.push(alert),
    log: wrap(createPino({ write: (line: string) => void logLines.push(line) })),
    pageUrl: 'http://127.0.0.1:3999/alerts',
    now: () => clock,
    backoffMs: [10, 20, 40, 80],
    timeoutMs: 2_000,
  })
  services.push(service)
  return service
}

async function at(service: AlertService, time: number, mirrors: MirrorFigures[]): Promise<void> {
  clock = time
  figures = mirrors
  await service.evaluate()
}

async function listen(status?: () => number) {
  const made = await receiver(status)
  servers.push(made.server)
  return made
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-alerts-'))
  clock = 1_000_000
  figures = [calm]
  published = []
  logLines = []
  services = []
  servers = []
})
afterEach(async () => {
  for (const service of services) await service.close()
  for (const server of servers) server.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('built-in alerting', () => {
  it('delivers a firing alert to a webhook at the first evaluation after the rule held for its for, then its resolution', async () => {
    const hook = await listen()
    const service = await open()
    await service.addReceiver({ name: 'ops', url: `${hook.url}/hook`, format: 'webhook' }, own)
    await at(service, 1_000_000, [failed])
    await at(service, 1_025_000, [failed])
    expect(service.list({ state: 'firing' })).toEqual([])
    await at(service, 1_030_000, [failed])
    expect(service.list({ state: 'firing' })).toEqual([expect.objectContaining({ rule: 'PartitionFailed', state: 'firing', mirror: 'dr', since: 1_000_000, firedAt: 1_030_000, silenced: false })])
    expect(published.map((alert) => `${alert.rule}:${alert.state}`)).toEqual(['PartitionFailed:firing'])
    await until(() => hook.received.length === 1, 'the firing delivery')
    expect(hook.received[0]).toMatchObject({ path: '/hook', body: { version: 1, receiver: 'ops', status: 'firing', alerts: [{ rule: 'PartitionFailed', summary: '1 partition of mirror dr FAILED: orders-0 (source unreachable)', topic: 'orders', partition: 0 }] } })
    await at(service, 1_035_000, [calm])
    await until(() => hook.received.length === 2, 'the resolved delivery')
    expect(hook.received[1]).toMatchObject({ body: { status: 'resolved', alerts: [{ rule: 'PartitionFailed', state: 'resolved', resolvedAt: 1_035_000 }] } })
    expect(service.list()).toEqual([expect.objectContaining({ state: 'resolved', resolvedAt: 1_035_000 })])
    expect(service.listReceivers()[0]!.lastDelivery).toMatchObject({ ok: true, status: 200, attempts: 1, what: 'PartitionFailed resolved' })
  })

  it('retries a receiver that answers 500 with backoff, five attempts in all, and shows it failing', async () => {
    const broken = await listen(() => 500)
    const service = await open()
    await service.addReceiver({ name: 'broken', url: broken.url, format: 'webhook' }, own)
    await at(service, 1_000_000, [{ ...calm, splitBrainRecords: 2 }])
    await until(() => service.listReceivers()[0]!.retrying === 0 && broken.received.length === 5, 'five attempts')
    expect(service.listReceivers()[0]).toMatchObject({ name: 'broken', retrying: 0, lastDelivery: { ok: false, status: 500, attempts: 5, error: 'answered 500 Internal Server Error', what: 'SplitBrainWrites firing' } })
    expect(logLines.filter((line) => line.includes('alert delivery failed; retrying'))).toHaveLength(4)
    expect(logLines.filter((line) => line.includes('alert delivery failed; giving up'))).toHaveLength(1)
  })

  it('delivers nothing for a silenced mirror, marks its alerts silenced, and delivers a firing alert once the silence is deleted', async () => {
    const hook = await listen()
    const service = await open()
    await service.addReceiver({ name: 'ops', url: hook.url, format: 'webhook' }, own)
    const silence = await service.addSilence({ mirror: 'dr', until: 1_000_000 + 3_600_000, comment: 'planned maintenance' }, 'token:operator')
    expect(service.listSilences()).toEqual([silence])
    await at(service, 1_000_000, [{ ...calm, splitBrainRecords: 1 }])
    await at(service, 1_005_000, [{ ...calm, splitBrainRecords: 1 }])
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(hook.received).toEqual([])
    expect(service.list({ state: 'firing' })).toEqual([expect.objectContaining({ rule: 'SplitBrainWrites', silenced: true })])
    await service.deleteSilence(silence.id)
    await at(service, 1_010_000, [{ ...calm, splitBrainRecords: 1 }])
    await until(() => hook.received.length === 1, 'the delivery after the silence')
    expect(hook.received[0]).toMatchObject({ body: { status: 'firing', alerts: [{ rule: 'SplitBrainWrites', silenced: false }] } })
  })

  it('refuses bad receivers and silences with VALIDATION_FAILED (or CONFLICT), storing nothing', async () => {
    const service = await open()
    await expect(service.addReceiver({ name: 'ftp', url: 'ftp://files.example.com/x', format: 'webhook' }, own)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(service.addReceiver({ name: 'self', url: 'http://127.0.0.1:3999/api/v1/health', format: 'webhook' }, own)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/this server/) })
    await expect(service.addReceiver({ name: 'self2', url: 'http://localhost:3999/x', format: 'alertmanager' }, own)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(service.addSilence({ mirror: 'dr', until: clock - 1, comment: 'late' }, 'op')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(service.addSilence({ mirror: 'nope', until: clock + 60_000, comment: 'x' }, 'op')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(service.listReceivers()).toEqual([])
    expect(service.listSilences()).toEqual([])
    await service.addReceiver({ name: 'ops', url: 'http://127.0.0.1:1/x', format: 'webhook' }, own)
    await expect(service.addReceiver({ name: 'ops', url: 'http://127.0.0.1:2/y', format: 'slack' }, own)).rejects.toMatchObject({ code: 'CONFLICT' })
    expect(service.listReceivers().map((r) => r.url)).toEqual(['http://127.0.0.1:1/x'])
  })

  it('never answers or logs a receiver URL\'s secrets; the file that keeps them is the owner\'s alone', async () => {
    const hook = await listen(() => 503)
    const service = await open()
    const secretUrl = `${hook.url.replace('http://', 'http://bot:pw-secret@')}/services/T0AB12CD3/Tok3nSecretValue?key=k-secret`
    const added = await service.addReceiver({ name: 'slack', url: secretUrl, format: 'slack' }, own)
    expect(added.url).toBe(`${hook.url.replace('http://', 'http://***@')}/services/***/***?key=***`)
    await at(service, 1_000_000, [{ ...calm, splitBrainRecords: 1 }])
    await until(() => hook.received.length === 5, 'the attempts')
    await until(() => service.listReceivers()[0]!.retrying === 0, 'the last attempt')
    const answers = JSON.stringify([service.listReceivers(), await service.testReceiver('slack')])
    for (const text of [answers, logLines.join('\n')]) expect(text).not.toMatch(/pw-secret|Tok3nSecretValue|k-secret/)
    expect(hook.received[0]!.body).toMatchObject({ text: expect.stringContaining(':red_circle: *FIRING* SplitBrainWrites') })
    expect(hook.received[0]!.authorization).toBe(`Basic ${Buffer.from('bot:pw-secret').toString('base64')}`)
    const file = path.join(dataDir, 'alerts', 'alerts.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toContain('Tok3nSecretValue')
  })

  it('posts to an Alertmanager at /api/v2/alerts, and sends a newly added receiver the alerts firing now', async () => {
    const am = await listen()
    const service = await open()
    await at(service, 1_000_000, [{ ...calm, failedOperation: { id: 'op-1', kind: 'failover', finishedAt: 999_000 } }])
    await service.addReceiver({ name: 'am', url: am.url, format: 'alertmanager' }, own)
    await until(() => am.received.length === 1, 'the delivery to the new receiver')
    expect(am.received[0]).toMatchObject({ path: '/api/v2/alerts', body: [{ labels: { alertname: 'OperationFailed', severity: 'critical', mirror: 'dr', operation: 'op-1', kind: 'failover' }, startsAt: new Date(1_000_000).toISOString() }] })
  })

  it('answers a test alert with the delivery result and keeps it as the last delivery', async () => {
    const hook = await listen()
    const service = await open()
    await service.addReceiver({ name: 'ops', url: hook.url, format: 'webhook' }, own)
    const delivery = await service.testReceiver('ops')
    expect(delivery).toEqual({ at: clock, ok: true, status: 200, attempts: 1, what: 'test' })
    expect(hook.received[0]).toMatchObject({ body: { alerts: [{ rule: 'MirrorboardTestAlert' }] } })
    expect(service.listReceivers()[0]!.lastDelivery).toEqual(delivery)
    await expect(service.testReceiver('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('keeps firing alerts, receivers and silences across a restart: no second firing delivery, and the resolution is delivered', async () => {
    const hook = await listen()
    const first = await open()
    await first.addReceiver({ name: 'ops', url: hook.url, format: 'webhook' }, own)
    await at(first, 1_000_000, [{ ...calm, splitBrainRecords: 4 }])
    await until(() => hook.received.length === 1, 'the firing delivery')
    await first.close()
    const second = await open()
    expect(second.listReceivers().map((r) => r.name)).toEqual(['ops'])
    expect(second.list({ state: 'firing' })).toEqual([expect.objectContaining({ rule: 'SplitBrainWrites', since: 1_000_000 })])
    await at(second, 1_100_000, [{ ...calm, splitBrainRecords: 4 }])
    await at(second, 1_105_000, [calm])
    await until(() => hook.received.length === 2, 'the resolved delivery')
    expect(hook.received.map((r) => (r.body as { status: string }).status)).toEqual(['firing', 'resolved'])
  })
})
