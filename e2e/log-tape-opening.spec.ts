import { expect, test } from '@playwright/test'
import { produce, setUpMirror } from './mirror-support'
import { asOperator, asViewer, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * Issue #33 item 6: the log tapes open where the story is. A log of 170 records fits the page's window of 200
 * offsets, so the window starts at offset 0; the tapes still open scrolled to the mirrored position, where the
 * records at risk begin, not at offset 0 with the story twelve screens to the right.
 */
test('the tapes of a log that fits the window open at the mirrored position, not at offset 0', async ({ page, request }, testInfo) => {
  const { mirror, source } = await setUpMirror(request, { events: 1 })
  await produce(request, source, 'events', 0, 120)
  await expect
    .poll(async () => (await okJson<{ partitions: Array<{ destinationHighWatermark: number }> }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))).partitions[0]?.destinationHighWatermark, { timeout: 20_000 })
    .toBe(120)
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: { topics: ['events'] } }))
  await produce(request, source, 'events', 0, 50)

  await signIn(page, 'viewer', `/mirrors/${mirror}/partitions/events/0`)
  const tapes = page.getByTestId('log-strips-scroller')
  await expect(page.getByText(/50 records at risk/)).toBeVisible({ timeout: 20_000 })
  // Down to the tapes (below the fold on a phone); their own sideways scroll is what is checked.
  await tapes.evaluate((box) => box.scrollIntoView({ block: 'center' }))
  const firstAtRisk = tapes.locator('[data-lane="source"][data-offset="120"]')
  await expect(firstAtRisk).toBeInViewport()
  await expect(tapes.locator('[data-lane="source"][data-offset="119"]')).toBeInViewport()
  await expect(tapes.locator('[data-lane="source"][data-offset="0"]')).not.toBeInViewport()
  expect(await tapes.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0)
  await lookAt(page, testInfo, 'log-tapes-open-at-story')
})
