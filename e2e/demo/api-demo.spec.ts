import { expect, test } from '@playwright/test'
import { asOperator, asViewer, expectError, okJson } from '../support/http'

/**
 * The demo endpoints against the production server in demo mode (playwright.demo.config.ts): the live
 * mirror with lag, a workload pause, a fault and its heal, the scenarios on offer, and the one-click sign-in
 * that only loopback gets. The worked example is run once, from the control room (control-room.spec.ts),
 * which checks its logs through the same records API; every scenario runs to its end in
 * server/demo/demo-environment.test.ts.
 */

const SETTLE = { timeout: 60_000, intervals: [200, 500, 1000] }

interface Partition {
  state: string
  offsetLag: number | null
  destinationHighWatermark: number
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

    const { scenarios } = await okJson<{ scenarios: Array<{ name: string; steps: unknown[] }> }>(await request.get('/api/v1/demo/scenarios', { headers: asOperator }))
    expect(scenarios.map((s) => [s.name, s.steps.length])).toEqual([
      ['kip-worked-example', 8],
      ['source-lost', expect.any(Number)],
      ['planned-switchover', expect.any(Number)],
      ['unclean-election', expect.any(Number)],
      ['rehearse-before-you-need-it', 5],
    ])
    // Producers report the rate of the moment on their traffic curve, consumer groups how far behind they are.
    const live = await okJson<{ workloads: Array<{ kind: string; currentRatePerSecond: number; behindRecords: number | null }> }>(await request.get('/api/v1/demo/workloads', { headers: asOperator }))
    for (const workload of live.workloads) {
      if (workload.kind === 'consumer') expect(workload.behindRecords).not.toBeNull()
      else expect(workload.currentRatePerSecond).toBeGreaterThan(0)
    }
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
