import { expect, test, type APIRequestContext } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, expectError, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, mirrorStates } from './support/worked-example-setup'

/**
 * Planned switchover and the RPO gate in the failover wizard (issue #34): the type step with both
 * consequences, a switchover that fences, drains and stops with nothing lost, and an unplanned failover over
 * the RPO objective that needs the loss typed.
 */

async function mirrorOf(request: APIRequestContext, prefix: string, objectives: Record<string, number>): Promise<{ mirror: string; source: string }> {
  const source = unique(`${prefix}-a`)
  const destination = unique(`${prefix}-b`)
  const mirror = unique(prefix)
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders')
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'], config: { objectives } } }), 201)
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('MIRRORING')
  return { mirror, source }
}

test('a planned switchover through the wizard: fenced, drained, stopped, nothing lost; the old source refuses writes', async ({ page, request }, testInfo) => {
  test.setTimeout(90_000)
  const { mirror, source } = await mirrorOf(request, 'swo', { rpoRecords: 1000, rpoSeconds: 60 })
  await okJson(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] } }))
  await signIn(page, 'operator', `/mirrors/${mirror}/failover`)

  await expect(page.getByRole('heading', { name: '1. Planned or unplanned' })).toBeVisible()
  await expect(page.getByRole('radio', { name: 'Planned switchover' })).toBeChecked()
  await expect(page.locator('[data-type="planned"]')).toContainText('Nothing is lost')
  await expect(page.locator('[data-type="unplanned"] [data-rpo-status="met"]')).toContainText('Recovery-point objective 1,000 records, 60 s: met')
  await lookAt(page, testInfo, 'switchover-1-type')
  await page.getByRole('button', { name: 'Next: Topics' }).click()
  await page.getByRole('button', { name: 'Next: Gates' }).click()
  await expect(page.locator('[data-gate="write-fence"]')).toHaveAttribute('data-ok', 'true')
  await expect(page.locator('[data-gate="write-fence"]')).toContainText('TOPIC_WRITE_FENCED')
  await expect(page.locator('[data-gate="lag-threshold"]')).toHaveCount(0)
  await page.getByRole('button', { name: 'Next: Impact' }).click()
  await expect(page.locator('[data-impact="planned"]')).toContainText('it must be 0')
  await page.getByRole('button', { name: 'Next: Confirm' }).click()
  await expect(page.getByText('nothing is lost. If the drain does not finish in 120 s')).toBeVisible()
  await page.getByLabel(`Type the mirror name ${mirror} to confirm`).fill(mirror)
  await lookAt(page, testInfo, 'switchover-5-confirm')
  await page.getByRole('button', { name: `Switch over ${mirror}` }).click()

  await expect(page.getByRole('heading', { name: '7. Result' })).toBeVisible({ timeout: 45_000 })
  await expect(page.getByRole('status').filter({ hasText: 'Switched over with nothing lost' })).toBeVisible()
  await expect(page.getByTestId('records-lost').first()).toContainText('Records lost: 0')
  await expect(page.getByTestId('switchover-phase').first()).toContainText('Switched over')
  await lookAt(page, testInfo, 'switchover-7-result')

  const operationId = new URL(page.url()).searchParams.get('operation')!
  const operation = await okJson<{ kind: string; type: string; switchover: { phase: string; recordsLost: { total: number } } }>(await request.get(`/api/v1/operations/${operationId}`, { headers: asViewer }))
  expect(operation).toMatchObject({ kind: 'switchover', type: 'planned', switchover: { phase: 'done', recordsLost: { total: 0 } } })
  await expectError(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { records: [{ value: 'late' }] } }), 409, 'TOPIC_WRITE_FENCED')
})

test('an unplanned failover over the RPO objective needs the loss typed word for word', async ({ page, request }, testInfo) => {
  test.setTimeout(90_000)
  const { mirror, source } = await mirrorOf(request, 'rpo', { rpoRecords: 1 })
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')
  await okJson(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] } }))
  await signIn(page, 'operator', `/mirrors/${mirror}/failover`)

  await expect(page.getByRole('radio', { name: 'Unplanned failover' })).toBeChecked()
  await expect(page.locator('[data-type="unplanned"] [data-rpo-status="breached"]')).toContainText('breached (3 records')
  await page.getByRole('button', { name: 'Next: Topics' }).click()
  await page.getByRole('button', { name: 'Next: Gates' }).click()
  const rpo = page.locator('[data-gate="rpo-objective"]')
  await expect(rpo).toHaveAttribute('data-ok', 'false')
  await expect(rpo.getByRole('checkbox')).toHaveCount(0)
  await page.locator('[data-gate="lag-threshold"]').getByRole('checkbox', { name: /Force past this gate/ }).check()
  const next = page.getByRole('button', { name: 'Next: Impact' })
  const field = rpo.getByLabel(/To fail over anyway, type/)
  const words = (await rpo.locator('label .font-mono').textContent())!
  expect(words).toMatch(/^accept the loss of 3 records, \d+ s$/)
  await field.fill('accept the loss')
  await expect(next).toBeDisabled()
  // The gates step reads the plan again when entered, and a paused mirror's time at risk grows every second:
  // the words stay the ones read (the refetch landing between the read and the fill failed 1 run in 10).
  await expect(rpo.locator('label .font-mono')).toHaveText(words)
  await field.fill(words)
  await expect(rpo).toContainText('failed · forced')
  await expect(next).toBeEnabled()
  await lookAt(page, testInfo, 'rpo-3-gates-typed')
  await next.click()
  await expect(page.locator('[data-rpo-status="breached"]').first()).toContainText('Recovery point: a failover now loses 3 records')
  await page.getByRole('button', { name: 'Next: Confirm' }).click()
  await page.getByLabel(`Type the mirror name ${mirror} to confirm`).fill(mirror)
  await page.getByRole('button', { name: `Fail over ${mirror}` }).click()
  await expect(page.getByRole('heading', { name: '7. Result' })).toBeVisible({ timeout: 45_000 })

  const audit = await okJson<{ entries: Array<{ dryRun: boolean; request: { force?: string[]; type?: string }; plan?: { rpo?: { status: string; records: number } } }> }>(
    await request.get('/api/v1/audit?action=mirror.failover&limit=50', { headers: asViewer }),
  )
  const real = audit.entries.find((entry) => !entry.dryRun && entry.request.force?.includes('rpo-objective'))
  expect(real).toMatchObject({ request: { type: 'unplanned' }, plan: { rpo: { status: 'breached', records: 3 } } })
})
