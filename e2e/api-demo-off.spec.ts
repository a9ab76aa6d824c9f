import { expect, test } from '@playwright/test'
import { asOperator, expectError } from './support/http'

/** The server of playwright.config.ts runs without the demo: every /demo endpoint is absent, sign-in included. */

test('outside demo mode every /demo endpoint answers 404 and nothing is created', async ({ request }) => {
  for (const [method, path] of [
    ['GET', '/api/v1/demo'],
    ['GET', '/api/v1/demo/workloads'],
    ['GET', '/api/v1/demo/faults'],
    ['POST', '/api/v1/demo/scenarios/kip-worked-example/run'],
    ['POST', '/api/v1/demo/session'],
    ['GET', '/api/v1/demo/session'],
  ] as const) {
    const response = await request.fetch(path, { method, headers: path.endsWith('/session') ? {} : asOperator })
    await expectError(response, 404, 'NOT_FOUND')
  }
  const faults = await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'cut-link', cluster: 'us-east' } })
  await expectError(faults, 404, 'NOT_FOUND')
  const { clusters } = (await (await request.get('/api/v1/clusters', { headers: asOperator })).json()) as { clusters: Array<{ name: string }> }
  expect(clusters.map((c) => c.name)).not.toContain('us-east')
})
