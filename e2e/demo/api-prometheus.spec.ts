import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, viewerToken } from '../support/http'

/**
 * Alerts reach people, both ways, from one fault. Prometheus (Debian's, on loopback) scrapes this server every
 * second with the shipped rules, and routes through Alertmanager to a webhook this test runs; the server's
 * built-in alerting posts to another. Cutting the link of a mirror's source makes its partitions FAILED: both
 * receivers get PartitionFailed (the built-in one within the rule's `for` plus one evaluation), and healing
 * resolves it on both. Then every query of the shipped Grafana dashboard returns a series from that Prometheus.
 * The delays from the fault to each delivery are printed.
 */

const root = path.resolve(__dirname, '..', '..')
const PARTITION_FAILED_FOR_MS = 30_000
const EVALUATION_MS = 5_000

interface Hit {
  at: number
  body: unknown
}

async function webhook(): Promise<{ url: string; hits: Hit[]; server: Server }> {
  const hits: Hit[] = []
  const server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
    request.on('end', () => {
      hits.push({ at: Date.now(), body: JSON.parse(text) as unknown })
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits, server }
}

/** A port nothing listens on now (E2E_ALERTS_PORT_BASE picks fixed ones instead, for a shared machine's port ranges). */
async function freePort(offset: number): Promise<number> {
  const base = process.env.E2E_ALERTS_PORT_BASE
  if (base) return Number(base) + offset
  const server = createNetServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function start(command: string, args: string[], log: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')))
  return child
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as T
}

const builtInFiring = (mirror: string, status: string, rule = 'PartitionFailed') => (hit: Hit) => {
  const body = hit.body as { status?: string; alerts?: Array<{ rule: string; mirror: string }> }
  return body.status === status && (body.alerts ?? []).some((alert) => alert.rule === rule && alert.mirror === mirror)
}
const alertmanagerFiring = (mirror: string, status: string) => (hit: Hit) => {
  const body = hit.body as { alerts?: Array<{ status: string; labels: Record<string, string> }> }
  return (body.alerts ?? []).some((alert) => alert.status === status && alert.labels.alertname === 'PartitionFailed' && alert.labels.mirror === mirror)
}

test('a FAILED partition reaches a webhook through Prometheus and Alertmanager and through the built-in alerting; healing resolves both; the dashboard queries answer', async ({ request, baseURL }) => {
  test.setTimeout(180_000)
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-prometheus-'))
  const processes: ChildProcess[] = []
  const logs: string[] = []
  const servers: Server[] = []
  const source = `live-src-${Date.now().toString(36)}`
  const destination = `live-dst-${Date.now().toString(36)}`
  const mirror = `live-${Date.now().toString(36)}`
  try {
    // A mirror of its own, so the demo's mirror and the other journeys are left alone.
    await createCluster(request, source, { brokers: 1 })
    await createCluster(request, destination, { brokers: 1 })
    await createTopic(request, source, 'events', 2)
    await okJson(await request.post(`/api/v1/clusters/${source}/topics/events/records`, { headers: asOperator, data: { records: [{ value: 'a' }, { value: 'b' }] } }))
    await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['events'] } }), 201)
    await expect
      .poll(async () => (await okJson<{ partitions: Array<{ state: string }> }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))).partitions.map((p) => p.state), { timeout: 30_000 })
      .toEqual(['MIRRORING', 'MIRRORING'])

    const builtIn = await webhook()
    const fromAlertmanager = await webhook()
    servers.push(builtIn.server, fromAlertmanager.server)
    const receiverName = `live-${Date.now().toString(36)}`
    await okJson(await request.post('/api/v1/alerts/receivers', { headers: asOperator, data: { name: receiverName, url: builtIn.url, format: 'webhook' } }), 201)

    const alertmanagerPort = await freePort(0)
    const prometheusPort = await freePort(1)
    // The shipped example, with its receiver pointed at this test and its waits shortened to fit a test run.
    const alertmanagerConfig = readFileSync(path.join(root, 'deploy/alertmanager/alertmanager.yml'), 'utf8')
      .replace('http://127.0.0.1:9099/mirrorboard-alerts', fromAlertmanager.url)
      .replace(/group_wait: \d+s/g, 'group_wait: 1s')
      .replace(/group_interval: \d+m/g, 'group_interval: 1s')
    writeFileSync(path.join(dir, 'alertmanager.yml'), alertmanagerConfig)
    writeFileSync(path.join(dir, 'token'), viewerToken)
    const target = new URL(baseURL!)
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: ['${path.join(root, 'deploy/prometheus/rules.yml')}']`,
        `alerting: { alertmanagers: [{ static_configs: [{ targets: ['127.0.0.1:${alertmanagerPort}'] }] }] }`,
        'scrape_configs:',
        `  - { job_name: mirrorboard, metrics_path: /api/metrics, authorization: { credentials_file: '${path.join(dir, 'token')}' }, static_configs: [{ targets: ['${target.host}'] }] }`,
        '',
      ].join('\n'),
    )
    processes.push(
      start('prometheus-alertmanager', [`--config.file=${path.join(dir, 'alertmanager.yml')}`, `--storage.path=${path.join(dir, 'am')}`, `--web.listen-address=127.0.0.1:${alertmanagerPort}`, '--cluster.listen-address='], logs),
      start('prometheus', [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`], logs),
    )
    const prometheus = `http://127.0.0.1:${prometheusPort}`
    await expect
      .poll(async () => {
        const targets = await getJson<{ data: { activeTargets: Array<{ health: string }> } }>(`${prometheus}/api/v1/targets`).catch(() => null)
        return targets?.data.activeTargets.map((t) => t.health)
      }, { timeout: 30_000 })
      .toEqual(['up'])

    // The fault.
    const faultAt = Date.now()
    const { fault } = await okJson<{ fault: { id: string } }>(await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'cut-link', cluster: source } }), 202)
    await expect
      .poll(async () => (await okJson<{ partitions: Array<{ state: string }> }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))).partitions.map((p) => p.state), { timeout: 20_000, intervals: [100] })
      .toEqual(['FAILED', 'FAILED'])
    const failedAt = Date.now()

    await expect.poll(() => builtIn.hits.some(builtInFiring(mirror, 'firing')), { timeout: 60_000, intervals: [200] }).toBe(true)
    const builtInAt = builtIn.hits.find(builtInFiring(mirror, 'firing'))!.at
    await expect.poll(() => fromAlertmanager.hits.some(alertmanagerFiring(mirror, 'firing')), { timeout: 60_000, intervals: [200] }).toBe(true)
    const alertmanagerAt = fromAlertmanager.hits.find(alertmanagerFiring(mirror, 'firing'))!.at
    const firingInPrometheus = await getJson<{ data: { alerts: Array<{ state: string; labels: Record<string, string> }> } }>(`${prometheus}/api/v1/alerts`)
    expect(firingInPrometheus.data.alerts).toContainEqual(expect.objectContaining({ state: 'firing', labels: expect.objectContaining({ alertname: 'PartitionFailed', mirror, severity: 'critical' }) }))
    // The built-in rule: the partitions became FAILED by failedAt; the alert is due `for` after the first evaluation that saw them.
    expect(builtInAt - failedAt).toBeLessThanOrEqual(PARTITION_FAILED_FOR_MS + EVALUATION_MS + 2_000)
    expect(builtInAt - failedAt).toBeGreaterThanOrEqual(PARTITION_FAILED_FOR_MS - EVALUATION_MS)

    // Healing: the link back, then Recover rather than waiting out the retry backoff.
    const healAt = Date.now()
    await okJson(await request.delete(`/api/v1/demo/faults/${fault.id}`, { headers: asOperator }))
    await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/recover`, { headers: asOperator, data: {} }))
    await expect.poll(() => builtIn.hits.some(builtInFiring(mirror, 'resolved')), { timeout: 30_000, intervals: [200] }).toBe(true)
    await expect.poll(() => fromAlertmanager.hits.some(alertmanagerFiring(mirror, 'resolved')), { timeout: 30_000, intervals: [200] }).toBe(true)
    const resolvedBuiltIn = builtIn.hits.find(builtInFiring(mirror, 'resolved'))!.at
    const resolvedAlertmanager = fromAlertmanager.hits.find(alertmanagerFiring(mirror, 'resolved'))!.at

    console.log(
      [
        `fault → partitions FAILED: ${failedAt - faultAt} ms`,
        `fault → PartitionFailed delivered, built in: ${builtInAt - faultAt} ms (FAILED → delivered ${builtInAt - failedAt} ms; rule for 30 s, evaluation every 5 s)`,
        `fault → PartitionFailed delivered, Prometheus + Alertmanager: ${alertmanagerAt - faultAt} ms (FAILED → delivered ${alertmanagerAt - failedAt} ms; scrape and evaluation every 1 s, group_wait 1 s)`,
        `heal → resolved delivered: built in ${resolvedBuiltIn - healAt} ms, Prometheus + Alertmanager ${resolvedAlertmanager - healAt} ms`,
      ].join('\n'),
    )

    // A failover of the mirror, so the operation and split-brain panels have series as well.
    const { operation } = await okJson<{ operation: string }>(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror } }), 202)
    await expect.poll(async () => (await okJson<{ status: string }>(await request.get(`/api/v1/operations/${operation}`, { headers: asViewer }))).status, { timeout: 30_000 }).toBe('succeeded')

    const dashboard = JSON.parse(readFileSync(path.join(root, 'deploy/grafana/mirrorboard.json'), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> }
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((t) => ({ panel: panel.title, expr: t.expr.replaceAll('$mirror', '.*') })))
    await expect
      .poll(
        async () => {
          const empty: string[] = []
          for (const { panel, expr } of queries) {
            const answer = await getJson<{ data: { result: unknown[] } }>(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`)
            if (answer.data.result.length === 0) empty.push(`${panel}: ${expr}`)
          }
          return empty
        },
        { timeout: 20_000, intervals: [1_000] },
      )
      .toEqual([])
    await request.delete(`/api/v1/alerts/receivers/${receiverName}`, { headers: asOperator })
  } finally {
    // What Prometheus and Alertmanager said, beside the report of a failing run.
    await test.info().attach('prometheus-and-alertmanager.log', { body: logs.join('') })
    for (const child of processes) child.kill('SIGTERM')
    await Promise.all(processes.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))))
    for (const server of servers) server.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
