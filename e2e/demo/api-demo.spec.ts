import { expect, test } from '@playwright/test'
import { asOperator, asViewer, expectError, okJson } from '../support/http'

/**
 * The demo endpoints against the production server in demo mode (playwright.demo.config.ts): the live
 * mirror with lag, a workload pause, a fault and its heal, the worked example run to its end with the
 * destination log as in the excerpt, and the one-click sign-in that only loopback gets.
 */

const SETTLE = { timeout: 60_000, intervals: [200, 500, 1000] }

interface Partition {
  state: string
  offsetLag: number | null
  destinationHighWatermark: number
}
interface Run {
  id: string
  status: string
  context: { sourceCluster: string; destinationCluster: string; mirror: string; topic: string }
  steps: Array<{ title: string; narration: string; status: string }>
  error: string | null
}

test.describe('the demo API', () => {
  test('the live mirror shows lag; a workload pauses and resumes; a stopped broker is healed', async ({ request }) => {
    const status = await okJson<{ status: string; mirror: string }>(await request.get('/api/v1/demo', { headers: asViewer }))
    expect(status).toMatchObject({ status: 'ready', mirror: 'us-east-to-eu-west' })
    await expect
      .poll(async () => {
        const { partitions } = await okJson<{ partitions: Partition[] }>(await request.get('/api/v1/mirrors/us-east-to-eu-west/partitions', { headers: asViewer }))
        return partitions.length === 21 && partitions.every((p) => p.state === 'MIRRORING' && p.offsetLag !== null) && partitions.some((p) => p.destinationHighWatermark > 0)
      }, SETTLE)
      .toBe(true)

    const { workloads } = await okJson<{ workloads: Array<{ name: string; paused: boolean }> }>(await request.get('/api/v1/demo/workloads', { headers: asOperator }))
    expect(workloads.map((w) => w.name)).toContain('orders-transactions')
    const paused = await okJson<{ workload: { paused: boolean } }>(await request.post('/api/v1/demo/workloads/payments-idempotent/pause', { headers: asOperator }))
    expect(paused.workload.paused).toBe(true)
    expect((await okJson<{ workload: { paused: boolean } }>(await request.post('/api/v1/demo/workloads/payments-idempotent/resume', { headers: asOperator }))).workload.paused).toBe(false)
    await expectError(await request.patch('/api/v1/demo/workloads/payments-idempotent', { headers: asOperator, data: { ratePerSecond: -1 } }), 400, 'VALIDATION_FAILED')
    await expectError(await request.post('/api/v1/demo/workloads/nope/pause', { headers: asOperator }), 404, 'NOT_FOUND')
    await expectError(await request.get('/api/v1/demo/workloads', { headers: asViewer }), 403, 'FORBIDDEN')

    const { fault } = await okJson<{ fault: { id: string; status: string } }>(
      await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'stop-broker', cluster: 'us-east', broker: 2 } }),
      202,
    )
    expect(fault.status).toBe('active')
    const cluster = await okJson<{ brokers: Array<{ id: number; alive: boolean }> }>(await request.get('/api/v1/clusters/us-east', { headers: asViewer }))
    expect(cluster.brokers.find((b) => b.id === 2)?.alive).toBe(false)
    const { faults } = await okJson<{ faults: Array<{ id: string }> }>(await request.get('/api/v1/demo/faults', { headers: asOperator }))
    expect(faults.map((f) => f.id)).toEqual([fault.id])
    const healed = await okJson<{ fault: { status: string } }>(await request.delete(`/api/v1/demo/faults/${fault.id}`, { headers: asOperator }))
    expect(healed.fault.status).toBe('healed')
    await expectError(await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'heal-link', cluster: 'us-east' } }), 409, 'CONFLICT')
    await expectError(await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'stop-broker', cluster: 'mars', broker: 1 } }), 404, 'NOT_FOUND')
  })

  test("the worked example runs to succeeded and the destination log is the excerpt's table", async ({ request }) => {
    const { scenarios } = await okJson<{ scenarios: Array<{ name: string; steps: unknown[] }> }>(await request.get('/api/v1/demo/scenarios', { headers: asOperator }))
    expect(scenarios.map((s) => s.name)).toEqual(['kip-worked-example', 'source-lost', 'planned-switchover', 'unclean-election'])
    const { run } = await okJson<{ run: Run }>(await request.post('/api/v1/demo/scenarios/kip-worked-example/run', { headers: asOperator }), 202)
    expect(run.steps).toHaveLength(8)
    await expectError(await request.post('/api/v1/demo/scenarios/kip-worked-example/run', { headers: asOperator }), 409, 'CONFLICT')
    await expectError(await request.post('/api/v1/demo/scenarios/nothing-like-it/run', { headers: asOperator }), 404, 'NOT_FOUND')
    let finished: Run = run
    await expect
      .poll(async () => {
        finished = (await okJson<{ run: Run }>(await request.get(`/api/v1/demo/runs/${run.id}`, { headers: asOperator }))).run
        return finished.status
      }, SETTLE)
      .not.toMatch(/^(pending|running)$/)
    expect(finished.error).toBeNull()
    expect(finished.steps.map((s) => s.status)).toEqual(Array(8).fill('succeeded'))
    const { destinationCluster, topic } = finished.context
    const page = await okJson<{ records: Array<{ offset: number; type: string; producerId: number | null; key: string | null; value: string | null }> }>(
      await request.get(`/api/v1/clusters/${destinationCluster}/topics/${topic}/partitions/0/records`, { headers: asViewer }),
    )
    expect(page.records.map((r) => [r.offset, r.type, r.producerId, r.key === null ? null : `${r.key}=${r.value}`])).toEqual([
      [0, 'DATA', 4001, 'A=1'],
      [1, 'DATA', 4001, 'B=2'],
      [2, 'DATA', 4002, 'X=9'],
      [3, 'ABORT', 4001, null],
      [4, 'ABORT', 4002, null],
      [5, 'MIRROR_PID_RESET', null, null],
    ])
  })

  test('the one-click sign-in answers loopback only, never a forwarded or rebound request', async ({ playwright, baseURL }) => {
    const anonymous = await playwright.request.newContext({ baseURL })
    expect(await okJson(await anonymous.get('/api/v1/demo/session'))).toEqual({ oneClickSignIn: true })
    const signedIn = await anonymous.post('/api/v1/demo/session')
    const session = await okJson<{ role: string; via: string }>(signedIn)
    expect(session).toMatchObject({ role: 'operator', via: 'cookie' })
    expect(signedIn.headers()['set-cookie']).toMatch(/^mirrorboard_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/)
    // The cookie works: an operator-only read succeeds without a token.
    expect((await anonymous.get('/api/v1/demo/faults')).status()).toBe(200)
    await expectError(await anonymous.post('/api/v1/demo/session', { headers: { 'X-Forwarded-For': '127.0.0.1' } }), 404, 'NOT_FOUND')
    await expectError(await anonymous.post('/api/v1/demo/session', { headers: { 'X-Mirrorboard-Peer-Address': '127.0.0.1', Host: 'rebound.example' } }), 404, 'NOT_FOUND')
    await anonymous.dispose()
    const openapi = await okJson<{ paths: Record<string, unknown> }>(await (await playwright.request.newContext({ baseURL })).get('/api/v1/openapi.json'))
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/api/v1/demo/session', '/api/v1/demo/faults', '/api/v1/demo/runs/{id}']))
  })
})
