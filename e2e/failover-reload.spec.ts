import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * Desktop only (the phone project ignores this file: a 2,000-partition setup twice would cost CI minutes):
 * reloading the wizard in the middle of a failover of 2,000 partitions returns to the progress step of the
 * same operation, and a second operator opening the wizard sees it too.
 */
const PARTITIONS = 2_000
/** The API caps a topic at 1,000 partitions. */
const TOPICS = ['events-0', 'events-1']

test('a reload during a 2,000-partition failover returns to the progress of the same operation', async ({ page, request, browser }, testInfo) => {
  test.setTimeout(180_000)
  const source = unique('big-a')
  const destination = unique('big-b')
  const mirror = unique('big')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  for (const topic of TOPICS) await createTopic(request, source, topic, PARTITIONS / TOPICS.length)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: TOPICS }, timeout: 120_000 }), 201)
  await expect
    .poll(async () => (await okJson<{ partitionsByState: Record<string, number> }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))).partitionsByState.MIRRORING ?? 0, {
      timeout: 90_000,
      intervals: [500, 1_000],
    })
    .toBe(PARTITIONS)

  await signIn(page, 'operator', `/mirrors/${mirror}/failover`)
  await page.getByRole('radio', { name: 'Unplanned failover' }).check()
  await page.getByRole('button', { name: 'Next: Topics' }).click()
  await page.getByRole('button', { name: 'Next: Gates' }).click()
  await expect(page.locator('[data-gate="lag-threshold"]')).toHaveAttribute('data-ok', 'true', { timeout: 30_000 })
  await page.getByRole('button', { name: 'Next: Impact' }).click()
  await expect(page.locator('li', { hasText: 'partitions will stop' })).toContainText('2k')
  await page.getByRole('button', { name: 'Next: Confirm' }).click()
  await page.getByLabel(`Type the mirror name ${mirror} to confirm`).fill(mirror)
  await page.getByRole('button', { name: `Fail over ${mirror}` }).click()

  await expect(page.getByRole('heading', { name: '6. Failing over' })).toBeVisible()
  await expect.poll(() => new URL(page.url()).searchParams.get('operation')).not.toBeNull()
  const operation = new URL(page.url()).searchParams.get('operation') ?? ''
  const before = await okJson<{ status: string }>(await request.get(`/api/v1/operations/${operation}`, { headers: asViewer }))
  // Running, unless it ended already (then the reload below shows its result).
  expect(['running', 'succeeded']).toContain(before.status)

  await page.reload()
  await expect(page.getByText(`Operation ${operation}`)).toBeVisible()
  // The wizard comes back to the same operation: its progress while it runs, or, when the failover ended while the
  // page reloaded (2,000 partitions stop in a second or two on a quiet machine), that operation's result. Never the
  // first step, which would offer a second failover of partitions already stopping.
  const progress = page.getByRole('progressbar', { name: 'Failover progress' })
  await expect(progress.or(page.getByRole('heading', { name: '7. Result' }))).toBeVisible()
  await expect(page.getByRole('heading', { name: '1. Planned or unplanned' })).toHaveCount(0)
  if (await progress.isVisible()) {
    await expect(page.getByRole('heading', { name: '6. Failing over' })).toBeVisible()
    await lookAt(page, testInfo, 'failover-5-progress', { alsoNarrow: true })
  }

  // A second operator opening the wizard (a fresh session, no address to go by) lands on the same operation.
  const second = await browser.newPage()
  await signIn(second, 'operator', `/mirrors/${mirror}/failover`, { timeout: 30_000 })
  // Opened while it runs, the wizard follows it (to its result if it ends meanwhile); opened after it ended,
  // there is nothing to follow and it starts afresh. Either way it never offers a second failover of it.
  await expect(second.getByText(`Operation ${operation}`).or(second.getByRole('heading', { name: '1. Planned or unplanned' }))).toBeVisible()
  await second.close()

  await expect(page.getByRole('heading', { name: '7. Result' })).toBeVisible({ timeout: 120_000 })
  await expect(page.getByRole('status').filter({ hasText: 'Failover done' })).toBeVisible()
  const operations = await okJson<{ operations: Array<{ id: string; mirror: string }> }>(await request.get('/api/v1/operations', { headers: asViewer }))
  expect(operations.operations.filter((entry) => entry.mirror === mirror).map((entry) => entry.id)).toEqual([operation])
})
