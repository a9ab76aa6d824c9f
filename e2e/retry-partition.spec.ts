import { expect, test, type APIRequestContext } from '@playwright/test'
import { row, waitForStates } from './mirror-support'
import { asOperator, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * Issue #33: "Retry now" on a FAILED row. The source topic `orders` is deleted, so its partitions fail for good
 * (the engine does not retry them). An operator retries one partition from the mirror page's table, then another
 * from its partition page: each request retries exactly that partition, not its topic; a refusal shows the
 * API's code and message.
 */

/** How often the partition left FAILED, as its history tells: once per retry. */
async function retriesOf(request: APIRequestContext, mirror: string, topic: string, partition: number): Promise<number> {
  const history = await okJson<{ transitions: Array<{ from: string | null; to: string }> }>(await request.get(`/api/v1/mirrors/${mirror}/partitions/${topic}/${partition}/history`, { headers: asOperator }))
  return history.transitions.filter((transition) => transition.from === 'FAILED' && transition.to !== 'FAILED').length
}

async function failedMirror(request: APIRequestContext): Promise<{ mirror: string }> {
  const source = unique('src')
  const destination = unique('dst')
  const mirror = unique('mirror')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders', 3)
  await createTopic(request, source, 'clicks', 1)
  await okJson(
    await request.post('/api/v1/mirrors', {
      headers: asOperator,
      data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders', 'clicks'], config: { 'mirror.metadata.refresh.interval.ms': 1_000 } },
      timeout: 120_000,
    }),
    201,
  )
  await waitForStates(request, mirror, { MIRRORING: 4 })
  const deleted = await request.delete(`/api/v1/clusters/${source}/topics/orders`, { headers: asOperator })
  expect(deleted.status(), await deleted.text()).toBe(204)
  await waitForStates(request, mirror, { MIRRORING: 1, FAILED: 3 })
  return { mirror }
}

test('Retry now retries one FAILED partition from its row and from its page; a refusal shows the code and message', async ({ page, request }, testInfo) => {
  test.setTimeout(150_000)
  const { mirror } = await failedMirror(request)
  await signIn(page, 'operator', `/mirrors/${mirror}`)
  await expect(row(page, 'orders', 0).locator('[data-state]')).toHaveAttribute('data-state', 'FAILED')

  await test.step('only FAILED rows offer it', async () => {
    await expect(row(page, 'orders', 0).getByRole('button', { name: 'Retry now for orders-0' })).toBeVisible()
    await expect(row(page, 'orders', 2).getByRole('button', { name: 'Retry now for orders-2' })).toBeVisible()
    await expect(row(page, 'clicks', 0).locator('[data-state]')).toHaveAttribute('data-state', 'MIRRORING')
    await expect(row(page, 'clicks', 0).getByRole('button')).toHaveCount(0)
    // Why it failed and when it is retried, whole: beside the button the reason was cut to "source changed · not retried: r…".
    await expect(row(page, 'orders', 0).getByTestId('failure-reason')).toContainText('source changed')
    await expect(row(page, 'orders', 0).getByTestId('failure-retry')).toHaveText('not retried: recover')
    if ((page.viewportSize()?.width ?? 0) >= 1024) {
      for (const testId of ['failure-reason', 'failure-retry']) {
        const cut = await row(page, 'orders', 0).getByTestId(testId).evaluate((element) => element.scrollWidth > element.clientWidth + 1)
        expect(cut, `${testId} is cut`).toBe(false)
      }
    }
    await lookAt(page, testInfo, 'retry-now-rows')
  })

  await test.step('the incident band stays in view while the operator scrolls to the table, covering no more than a line on a phone', async () => {
    const phone = (page.viewportSize()?.width ?? 0) < 1024
    await page.evaluate(() => window.scrollTo(0, 0))
    await expect(page.getByTestId('incident-strip')).toBeHidden()
    await row(page, 'orders', 2).scrollIntoViewIfNeeded()
    await page.getByTestId('partition-scroll').evaluate((box) => box.scrollIntoView({ block: 'end' }))
    if (phone) {
      const strip = page.getByTestId('incident-strip')
      await expect(strip).toBeVisible()
      await expect(strip).toContainText('3/4 FAILED · source changed')
      await expect(strip.getByRole('button', { name: 'Recover' })).toBeVisible()
      const box = await strip.boundingBox()
      expect(box?.y).toBeGreaterThanOrEqual(-1)
      expect(box?.y).toBeLessThanOrEqual(1)
      expect(box?.height).toBeLessThanOrEqual(48)
      await expect(page.getByTestId('incident-banner')).not.toBeInViewport()
      // The table the operator scrolled to is not under the band.
      expect((await page.getByTestId('partition-scroll').boundingBox())?.y).toBeGreaterThanOrEqual((box?.y ?? 0) + (box?.height ?? 0))
      expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)).toBe(false)
      await lookAt(page, testInfo, 'incident-strip-scrolled')
    } else {
      await expect(page.getByTestId('incident-strip')).toBeHidden()
      const box = await page.getByTestId('incident-banner').boundingBox()
      expect(box?.y).toBeLessThanOrEqual(16)
      expect(box?.y).toBeGreaterThanOrEqual(0)
    }
    await page.evaluate(() => window.scrollTo(0, 0))
  })

  await test.step('a row retries its partition only, and stays on the page', async () => {
    await row(page, 'orders', 0).getByRole('button', { name: 'Retry now for orders-0' }).click()
    await expect(page.getByTestId('retry-outcome')).toHaveText('✓ Retry requested for orders-0.')
    await expect(page).toHaveURL(new RegExp(`/mirrors/${mirror}$`))
    await expect.poll(() => retriesOf(request, mirror, 'orders', 0)).toBe(1)
    expect(await retriesOf(request, mirror, 'orders', 1)).toBe(0)
    expect(await retriesOf(request, mirror, 'orders', 2)).toBe(0)
  })

  await test.step("refused: the server's code and message, nothing retried", async () => {
    // The real server's refusal, not a made-up one: the request reaches it naming a partition that is MIRRORING.
    await page.route('**/api/v1/mirrors/*/topics/recover', (route) => route.continue({ postData: JSON.stringify({ partitions: [{ topic: 'clicks', partition: 0 }] }) }))
    await row(page, 'orders', 1).getByRole('button', { name: 'Retry now for orders-1' }).click()
    const refusal = page.getByRole('alert').filter({ hasText: 'Retry of orders-1 refused' })
    await expect(refusal).toContainText('INVALID_MIRROR_STATE')
    await expect(refusal).toContainText('clicks-0 is MIRRORING')
    expect(await retriesOf(request, mirror, 'orders', 1)).toBe(0)
    expect(await retriesOf(request, mirror, 'clicks', 0)).toBe(0)
    await lookAt(page, testInfo, 'retry-now-refused')
    await page.unroute('**/api/v1/mirrors/*/topics/recover')
  })

  await test.step('the partition page retries its partition, the one primary action there', async () => {
    await page.goto(`/mirrors/${mirror}/partitions/orders/2`)
    await expect(page.locator('header [data-state="FAILED"]').first()).toBeVisible()
    await expect(page.locator('main [data-primary]')).toHaveCount(1)
    await expect(page.getByRole('button', { name: 'Recover topic' })).toBeVisible()
    await page.getByRole('button', { name: 'Retry now' }).click()
    await expect(page.getByTestId('retry-outcome')).toHaveText('✓ Retry requested for orders-2.')
    await expect.poll(() => retriesOf(request, mirror, 'orders', 2)).toBe(1)
    expect(await retriesOf(request, mirror, 'orders', 1)).toBe(0)
    await lookAt(page, testInfo, 'retry-now-partition-page')
  })
})
