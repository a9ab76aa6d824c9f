import { expect, test } from '@playwright/test'
import { produce, setUpMirror } from './mirror-support'
import { asOperator, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/** Replication throttling seen by an operator: set live with PATCH, shown on the mirror page, edited on the settings page. */

test('a throttled mirror says so on its page, and its settings page holds the throttle', async ({ page, request }, testInfo) => {
  const { mirror, source } = await setUpMirror(request, { orders: 2 })
  await okJson(await request.patch(`/api/v1/mirrors/${mirror}`, { headers: asOperator, data: { config: { 'mirror.replication.throttled.rate': 100 } } }))
  // About 30 times the rate's one-second burst: the throttle holds the mirror back for half a minute.
  await produce(request, source, 'orders', 0, 200)
  await expect
    .poll(async () => (await okJson<{ throttled?: boolean; throttledRate?: number | null }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asOperator }))).throttled, { timeout: 20_000 })
    .toBe(true)

  await signIn(page, 'operator', `/mirrors/${mirror}`)
  const badge = page.getByTestId('throttle-badge')
  await expect(badge).toHaveText('Throttled at 100 B/s')
  await lookAt(page, testInfo, 'mirror-throttled')

  await page.goto(`/mirrors/${mirror}/settings`)
  await expect(page.getByLabel(/Replication throttle/)).toHaveValue('100')
  await expect(page.getByLabel(/Throttled partitions/)).toHaveValue('*')
  await lookAt(page, testInfo, 'mirror-settings-throttle')
})
