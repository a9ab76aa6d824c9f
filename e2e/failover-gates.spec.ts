import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, mirrorStates } from './support/worked-example-setup'

/** A paused mirror whose source wrote on: 2 records at risk, so the lag gate fails. */
async function laggingMirror(request: import('@playwright/test').APIRequestContext): Promise<string> {
  const source = unique('gate-a')
  const destination = unique('gate-b')
  const mirror = unique('gate')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders')
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('MIRRORING')
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')
  await okJson(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { partition: 0, records: [{ value: 'a' }, { value: 'b' }] } }))
  return mirror
}

test('a failing gate blocks until forced; forcing is in the audit log; a refusal keeps the wizard on its step', async ({ page, request }, testInfo) => {
  test.setTimeout(60_000)
  const mirror = await laggingMirror(request)
  await signIn(page, 'operator', `/mirrors/${mirror}/failover`)
  // A paused mirror never drains: planned is not offered, unplanned is chosen.
  await expect(page.getByTestId('planned-unavailable')).toContainText('1 partition is not MIRRORING (PAUSED)')
  await expect(page.getByRole('radio', { name: 'Unplanned failover' })).toBeChecked()
  await page.getByRole('button', { name: 'Next: Topics' }).click()
  await page.getByRole('button', { name: 'Next: Gates' }).click()
  const lag = page.locator('[data-gate="lag-threshold"]')
  await expect(lag).toContainText('2 record(s) at risk')
  await expect(lag).toContainText('What to do:')
  await expect(page.getByRole('button', { name: 'Next: Impact' })).toBeDisabled()
  await lag.getByRole('checkbox', { name: /Force past this gate/ }).check()
  await expect(lag).toContainText('failed · forced')
  await page.getByRole('button', { name: 'Next: Impact' }).click()
  await page.getByRole('button', { name: 'Next: Confirm' }).click()
  await expect(page.getByText('Forced past: Lag threshold')).toBeVisible()

  // Someone fails the mirror over from elsewhere meanwhile: this wizard's confirmation is refused, with the
  // API's code and message, and it stays where it is; only one operation exists.
  const other = await okJson<{ operation: string }>(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror, force: ['lag-threshold'] } }), 202)
  await expect.poll(async () => (await okJson<{ status: string }>(await request.get(`/api/v1/operations/${other.operation}`, { headers: asViewer }))).status, SETTLE).toBe('succeeded')
  await page.getByLabel(`Type the mirror name ${mirror} to confirm`).fill(mirror)
  await page.getByRole('button', { name: `Fail over ${mirror}` }).dblclick()
  const refusal = page.getByRole('alert').filter({ hasText: 'The failover was refused' })
  await expect(refusal).toContainText('INVALID_MIRROR_STATE')
  await expect(page.getByRole('heading', { name: '5. Confirm the failover' })).toBeVisible()
  await lookAt(page, testInfo, 'failover-4-confirm-refused')
  const operations = await okJson<{ operations: Array<{ id: string; mirror: string }> }>(await request.get('/api/v1/operations', { headers: asViewer }))
  expect(operations.operations.filter((operation) => operation.mirror === mirror).map((operation) => operation.id)).toEqual([other.operation])

  const audit = await okJson<{ entries: Array<{ dryRun: boolean; outcome: string; target: string; request: { force?: string[] }; error: { code: string } | null }> }>(
    await request.get('/api/v1/audit?action=mirror.failover&limit=50', { headers: asViewer }),
  )
  const mine = audit.entries.filter((entry) => entry.target === `/mirrors/${mirror}/failover` && !entry.dryRun)
  expect(mine.map((entry) => [entry.outcome, entry.request.force, entry.error?.code ?? null])).toEqual([
    ['rejected', ['lag-threshold'], 'INVALID_MIRROR_STATE'],
    ['ok', ['lag-threshold'], null],
  ])
})

test('without forcing, the API refuses a failover whose lag gate fails, and names the gate @wide-only', async ({ request }) => {
  const mirror = await laggingMirror(request)
  const response = await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror, force: [] } })
  expect(response.status()).toBe(409)
  const body = (await response.json()) as { error: { code: string; details: { unforced: string[] } } }
  expect(body.error.code).toBe('INVALID_MIRROR_STATE')
  expect(body.error.details.unforced).toEqual(['lag-threshold'])
  expect((await mirrorStates(request, mirror))[0]?.state).toBe('PAUSED')
})

test('a viewer who opens a wizard is told it needs the operator role', async ({ page, request }, testInfo) => {
  const mirror = await laggingMirror(request)
  await signIn(page, 'viewer', `/mirrors/${mirror}/failover`)
  await expect(page.getByRole('heading', { name: 'This needs the operator role' })).toBeVisible()
  await expect(page.getByRole('button', { name: /Next/ })).toHaveCount(0)
  await lookAt(page, testInfo, 'failover-viewer')
  await page.goto(`/mirrors/${mirror}/failback`)
  await expect(page.getByRole('heading', { name: 'This needs the operator role' })).toBeVisible()
})

test('an unknown mirror or operation gets the not-found page', async ({ page }) => {
  await signIn(page, 'operator', '/mirrors/no-such-mirror/failover')
  // The mirror routes' own not-found page, which names the mirror.
  await expect(page.getByRole('heading', { name: 'No mirror named “no-such-mirror”' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toBeVisible()
  await page.goto('/operations/no-such-operation')
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible()
})
