import { expect, test } from '@playwright/test'
import { produce, row, rowsInView, setUpMirror } from './mirror-support'
import { asOperator, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/** The mirror page: header, lag chart and the live partition table, as an operator and a viewer see them. */

test('the partition table sorts, filters and updates live while records are produced', async ({ page, request }, testInfo) => {
  const { mirror, source } = await setUpMirror(request, { orders: 3, clicks: 2 })
  await signIn(page, 'operator', `/mirrors/${mirror}`)
  await expect(page).toHaveTitle(new RegExp(`Mirror ${mirror}`))
  await expect(page.getByRole('heading', { level: 1, name: mirror })).toBeVisible()
  await expect(page.getByRole('link', { name: source })).toHaveAttribute('href', `/clusters/${source}`)
  const table = page.getByRole('table', { name: `Partitions of mirror ${mirror}` })
  await expect(table.locator('[data-partition]')).toHaveCount(5)
  expect(await rowsInView(page)).toEqual(['clicks/0', 'clicks/1', 'orders/0', 'orders/1', 'orders/2'])
  await expect(page.getByTestId('lag-summary')).toBeVisible()

  await test.step('sort by partition, then flip it', async () => {
    // On the phone the column headers give way to a sort select (rows are cards).
    const sortSelect = page.getByLabel('Sort by', { exact: true })
    if (await sortSelect.isVisible()) await sortSelect.selectOption('partition:desc')
    else {
      await table.getByRole('button', { name: /^Partition/ }).click()
      await expect(table.getByRole('columnheader', { name: /^Partition/ })).toHaveAttribute('aria-sort', 'ascending')
      await table.getByRole('button', { name: /^Partition/ }).click()
      await expect(table.getByRole('columnheader', { name: /^Partition/ })).toHaveAttribute('aria-sort', 'descending')
    }
    await expect.poll(() => rowsInView(page)).toEqual(['orders/2', 'clicks/1', 'orders/1', 'clicks/0', 'orders/0'])
  })

  await test.step('filter by topic, text, and lag', async () => {
    await page.getByLabel('Topic', { exact: true }).selectOption('clicks')
    await expect(table.locator('[data-partition]')).toHaveCount(2)
    await expect(page.getByTestId('partition-count')).toHaveText('2 of 5 partitions')
    await page.getByLabel('Topic', { exact: true }).selectOption('')
    await page.getByLabel('Search', { exact: true }).fill('orders-1')
    await expect.poll(() => rowsInView(page)).toEqual(['orders/1'])
    await page.getByLabel('Search', { exact: true }).fill('')
    await page.getByLabel('Offset lag', { exact: true }).selectOption({ label: 'Lag > 1k' })
    await expect(table.locator('[data-partition]')).toHaveCount(0)
    await expect(page.getByText('No partition matches these filters.')).toBeVisible()
    await page.getByRole('button', { name: 'Clear filters' }).first().click()
    await expect(table.locator('[data-partition]')).toHaveCount(5)
  })

  await test.step('a pause made elsewhere shows up without a reload, and the state chips count it', async () => {
    await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: { topics: ['clicks'] } }))
    await expect(row(page, 'clicks', 0).locator('[data-state]')).toHaveAttribute('data-state', 'PAUSED')
    await expect(row(page, 'clicks', 1).locator('[data-state]')).toHaveAttribute('data-state', 'PAUSED')
    await expect(page.locator('[data-state-chip="PAUSED"]')).toContainText('2')
    await page.locator('[data-state-chip="PAUSED"]').click()
    await expect.poll(() => rowsInView(page)).toEqual(['clicks/1', 'clicks/0'])
    await page.locator('[data-state-chip="PAUSED"]').click()
    await expect(table.locator('[data-partition]')).toHaveCount(5)
  })

  await test.step('records produced to the source are mirrored: the destination high watermark moves', async () => {
    await produce(request, source, 'orders', 1, 25)
    await expect(row(page, 'orders', 1).getByTitle('destination high watermark')).toHaveText(/(^|\s)25$/, { timeout: 20_000 })
    await expect(row(page, 'orders', 0).getByTitle('destination high watermark')).toHaveText(/(^|\s)0$/)
  })

  await lookAt(page, testInfo, 'mirror-page')

  await test.step('a row opens its partition page', async () => {
    await expect(row(page, 'orders', 1).getByRole('link')).toHaveAttribute('href', `/mirrors/${mirror}/partitions/orders/1`)
  })
})

test('an operator pauses then resumes the mirror from the page', async ({ page, request }, testInfo) => {
  const { mirror } = await setUpMirror(request, { payments: 2 })
  await signIn(page, 'operator', `/mirrors/${mirror}`)
  await expect(row(page, 'payments', 1).locator('[data-state]')).toHaveAttribute('data-state', 'MIRRORING')

  await page.getByRole('button', { name: 'Pause' }).click()
  const dialog = page.getByRole('dialog', { name: 'Pause mirroring' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('action-scope')).toHaveText('Pause every topic: 2 of 2 partitions are mirroring or failed.')
  await lookAt(page, testInfo, 'mirror-pause-dialog')
  await dialog.getByRole('button', { name: 'Pause 2 partitions' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByRole('status').filter({ hasText: 'Pause requested' })).toContainText('topic payments')
  for (const partition of [0, 1]) await expect(row(page, 'payments', partition).locator('[data-state]')).toHaveAttribute('data-state', 'PAUSED')
  await expect(page.getByRole('group', { name: 'Partitions by state' })).toContainText('PAUSED2')

  await page.getByRole('button', { name: 'Resume' }).click()
  const resume = page.getByRole('dialog', { name: 'Resume mirroring' })
  await expect(resume.getByTestId('action-scope')).toHaveText('Resume every topic: 2 of 2 partitions are paused.')
  await resume.getByRole('button', { name: 'Resume 2 partitions' }).click()
  await expect(resume).toBeHidden()
  await expect(page.getByRole('status').filter({ hasText: 'Resume requested' })).toBeVisible()
  for (const partition of [0, 1]) await expect(row(page, 'payments', partition).locator('[data-state]')).toHaveAttribute('data-state', 'MIRRORING')
})

test('an action the API refuses shows its code and message and changes nothing on screen; once failed over, Pause is disabled with its reason and Failback is the primary action', async ({ page, request }, testInfo) => {
  const { mirror } = await setUpMirror(request, { ledger: 1 })
  await signIn(page, 'operator', `/mirrors/${mirror}`)
  await expect(row(page, 'ledger', 0).locator('[data-state]')).toHaveAttribute('data-state', 'MIRRORING')
  // The dialog is opened while the partition mirrors; the mirror fails over behind the operator's back.
  await page.getByRole('button', { name: 'Pause' }).click()
  const dialog = page.getByRole('dialog', { name: 'Pause mirroring' })
  await expect(dialog).toBeVisible()
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror } }), 202)
  await expect
    .poll(async () => (await okJson<{ partitionsByState: Record<string, number> }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asOperator }))).partitionsByState, { timeout: 30_000 })
    .toEqual({ STOPPED: 1 })
  await expect(row(page, 'ledger', 0).locator('[data-state]')).toHaveAttribute('data-state', 'STOPPED')
  await expect(dialog.getByTestId('action-scope')).toHaveText('Pause every topic: 0 of 1 partitions are mirroring or failed.')
  await dialog.getByRole('button', { name: 'Pause 0 partitions' }).click()
  const refusal = dialog.getByRole('alert').filter({ hasText: 'Pause refused' })
  await expect(refusal).toContainText('INVALID_MIRROR_STATE')
  await expect(refusal).toContainText('ledger-0 is STOPPED')
  await lookAt(page, testInfo, 'mirror-action-refused')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toBeHidden()
  await expect(row(page, 'ledger', 0).locator('[data-state]')).toHaveAttribute('data-state', 'STOPPED')
  await expect(page.getByRole('status').filter({ hasText: 'requested' })).toHaveCount(0)

  const actions = page.getByRole('group', { name: 'Mirror actions' })
  await expect(actions.getByRole('button', { name: 'Pause' })).toBeDisabled()
  await expect(actions.getByRole('button', { name: 'Pause' })).toHaveAccessibleDescription('Pause: nothing is mirroring')
  await expect(actions.getByRole('button', { name: 'Failover…' })).toBeDisabled()
  await expect(actions.getByRole('link', { name: 'Failback…' })).toHaveAttribute('data-primary', 'true')
})

test('starting a topic shows the dry-run plan first, then starts it', async ({ page, request }) => {
  const { mirror } = await setUpMirror(request, { orders: 1 }, { extraSourceTopics: { refunds: 2 } })
  await signIn(page, 'operator', `/mirrors/${mirror}`)
  await page.getByRole('button', { name: 'Start topics…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Start mirroring topics' })
  await dialog.getByLabel('refunds').check()
  await dialog.getByRole('button', { name: 'Preview the plan' }).click()
  await expect(dialog.getByTestId('start-plan-total')).toHaveText('2 partitions · no destination record is removed')
  await expect(dialog.getByRole('table')).toContainText('refunds/1')
  await dialog.getByRole('button', { name: 'Start 1 topic' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByRole('status').filter({ hasText: 'Started refunds' })).toBeVisible()
  await expect(row(page, 'refunds', 1).locator('[data-state]')).toHaveAttribute('data-state', 'MIRRORING', { timeout: 20_000 })
})

test('a viewer sees the mirror page without any control that changes it', async ({ page, request }, testInfo) => {
  const { mirror } = await setUpMirror(request, { audit: 2 })
  await signIn(page, 'viewer', `/mirrors/${mirror}`)
  await expect(row(page, 'audit', 1)).toBeVisible()
  for (const name of ['Pause', 'Resume', 'Start topics…']) await expect(page.getByRole('button', { name })).toHaveCount(0)
  for (const name of ['Failover…', 'Failback…']) await expect(page.getByRole('link', { name })).toHaveCount(0)
  await expect(page.getByRole('group', { name: 'Mirror actions' })).toHaveCount(0)
  // A mirror created seconds ago whose first fetch may not have been answered yet: never reported as a cut link.
  const throughput = page.getByTestId('mirror-throughput')
  await expect(throughput).toHaveAttribute('data-limit', /^(none|firstFetch)$/)
  await expect(throughput).not.toContainText('the source or the link is down')
  await lookAt(page, testInfo, 'mirror-page-viewer')
})

test('an unknown mirror is a real not-found page naming it, with a way back', async ({ page }, testInfo) => {
  await signIn(page, 'viewer')
  const response = await page.goto('/mirrors/no-such-mirror')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'No mirror named “no-such-mirror”' })).toBeVisible()
  await expect(page).toHaveTitle(/no-such-mirror/)
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toHaveAttribute('href', '/')
  await lookAt(page, testInfo, 'mirror-not-found')
})
