import { expect, test } from '@playwright/test'
import { asOperator, createCluster, unique } from './support/http'
import { lookAt } from './support/look'
import { expectNoSidewaysScroll } from './support/overview-setup'
import { signIn, waitForLiveUpdates } from './support/session'

/**
 * The audit page: filters by action and outcome narrow the list and live in the address, an entry opens to
 * its request and error, a time range in the future finds nothing.
 */
test('audit filters narrow the list, survive a reload, and an entry opens to its request and error', async ({ page, request }, testInfo) => {
  const name = unique('audited')
  await createCluster(request, name)
  // The same name again is refused with CONFLICT, and audited as rejected.
  const refused = await request.post('/api/v1/clusters', { headers: asOperator, data: { name, kind: 'embedded' } })
  expect(refused.status()).toBe(409)

  await signIn(page, 'viewer', '/audit')
  await expect(page).toHaveTitle(/^Audit log/)
  const entries = page.getByRole('list', { name: 'Audit entries, newest first' })
  await expect(entries.getByRole('listitem').first()).toBeVisible()
  await expect(entries.locator('[data-outcome="ok"]').first()).toBeVisible()

  await page.getByLabel('Action', { exact: true }).fill('cluster.create')
  await page.getByLabel('Outcome').selectOption('rejected')
  await page.getByRole('button', { name: 'Apply' }).click()
  await expect(page).toHaveURL(/\/audit\?action=cluster.create&outcome=rejected$/)
  await expect(entries.locator('[data-outcome]:not([data-outcome="rejected"])')).toHaveCount(0)
  await expect(entries.locator('[data-action]:not([data-action="cluster.create"])')).toHaveCount(0)
  // Ours by its target: another journey's refused cluster.create may be newer.
  const ours = entries.getByRole('listitem').filter({ hasText: 'cluster.create' }).filter({ hasText: name }).first()
  await ours.locator('summary').click()
  await expect(ours).toContainText('CONFLICT')
  await expect(ours.getByText(`"name": "${name}"`)).toBeVisible()
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'audit-filtered')

  await page.reload()
  await expect(page.getByLabel('Outcome')).toHaveValue('rejected')
  // The filters are in the server's HTML: typing before hydration would be lost (CI saw an empty From field).
  await waitForLiveUpdates(page)
  await expect(entries.locator('[data-outcome]:not([data-outcome="rejected"])')).toHaveCount(0)

  await page.getByLabel('From (UTC)').fill('2099-01-01T00:00')
  await page.getByRole('button', { name: 'Apply' }).click()
  await expect(page.getByText('No entry matches these filters.')).toBeVisible()

  await page.getByRole('button', { name: 'Clear' }).click()
  await expect(page).toHaveURL(/\/audit$/)
  await expect(entries.locator('[data-outcome="ok"]').first()).toBeVisible()
  await lookAt(page, testInfo, 'audit')
})
