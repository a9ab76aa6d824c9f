import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createCluster, expectError, okJson, unique } from './support/http'
import { setUpMirror } from './mirror-support'

/** DELETE /clusters/{cluster} (issue #19): removes a cluster no mirror uses; audited; refused otherwise. */
test('DELETE /clusters/{cluster} removes an unused cluster, refuses one a mirror uses, and is audited', async ({ request }) => {
  const spare = unique('spare')
  await createCluster(request, spare, { brokers: 1 })
  await expectError(await request.delete(`/api/v1/clusters/${spare}`, { headers: asViewer }), 403, 'FORBIDDEN')
  const removed = await request.delete(`/api/v1/clusters/${spare}`, { headers: asOperator })
  expect(removed.status()).toBe(204)
  await expectError(await request.get(`/api/v1/clusters/${spare}`, { headers: asViewer }), 404, 'NOT_FOUND')
  await expectError(await request.delete(`/api/v1/clusters/${spare}`, { headers: asOperator }), 404, 'NOT_FOUND')
  // The name is free again.
  await createCluster(request, spare, { brokers: 1 })

  const setup = await setUpMirror(request, { [unique('t')]: 1 })
  for (const cluster of [setup.source, setup.destination]) {
    const refused = await expectError(await request.delete(`/api/v1/clusters/${cluster}`, { headers: asOperator }), 409, 'CONFLICT')
    expect(refused.error.message).toContain(setup.mirror)
    await okJson(await request.get(`/api/v1/clusters/${cluster}`, { headers: asViewer }))
  }

  const audit = await okJson<{ entries: Array<{ action: string; target: string; outcome: string }> }>(await request.get('/api/v1/audit?action=cluster.delete&limit=20', { headers: asViewer }))
  const outcomes = audit.entries.filter((entry) => entry.target.includes(spare) || entry.target.includes(setup.source)).map((entry) => entry.outcome)
  expect(outcomes).toEqual(expect.arrayContaining(['ok', 'rejected']))
})
