import { expect, test } from '@playwright/test'
import { asOperator, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { failOver, workedExample } from './support/worked-example-setup'

/**
 * The split-brain guard: after a failover, a producer that still writes to the old source shows up on the
 * overview within 5 s (per topic, with the latest time), on the operation page, in the mirror summary and
 * as a Prometheus gauge.
 */
test('writes to the old source after a failover appear on the overview within 5 s', async ({ page, request }, testInfo) => {
  test.setTimeout(60_000)
  const example = await workedExample(request, 'sb')
  const operation = await failOver(request, example.mirror)
  await signIn(page, 'viewer', '/')
  await expect(page.getByTestId('split-brain').locator(`[data-mirror="${example.mirror}"]`)).toHaveCount(0)

  await okJson(await request.post(`/api/v1/clusters/${example.source}/topics/orders/records`, { headers: asOperator, data: { partition: 0, records: [{ value: 'late-1' }, { value: 'late-2' }] } }))
  const notice = page.getByTestId('split-brain').locator(`[data-mirror="${example.mirror}"]`)
  await expect(notice.getByTestId('split-brain-count')).toHaveText('2', { timeout: 5_000 })
  await expect(notice).toContainText(`written to ${example.source}`)
  await expect(notice).toContainText('orders: 2')
  // Who failed it over: the operation's requester (here the shared operator token), linked to the operation.
  await expect(notice).toContainText(`${example.mirror} failed over (`)
  await expect(notice.getByTestId('split-brain-failed-over-by')).toContainText('by the operator token at')
  await expect(notice.getByTestId('split-brain-failed-over-by').getByRole('link')).toHaveAttribute('href', `/operations/${operation}`)

  // The overview of this branch is main's placeholder (its own page is another journey's); the notice is looked
  // at on the operation page, where it shows too.
  await page.goto(`/operations/${operation}`)
  await expect(page.getByTestId('split-brain').getByTestId('split-brain-count')).toHaveText('2')
  await lookAt(page, testInfo, 'split-brain-operation')

  const summary = await okJson<{ splitBrain: { recordsWritten: number; oldSourceCluster: string; topics: Array<{ topic: string; recordsWritten: number; latestWriteAt: number | null }> } }>(
    await request.get(`/api/v1/mirrors/${example.mirror}`, { headers: asOperator }),
  )
  expect(summary.splitBrain).toMatchObject({ recordsWritten: 2, oldSourceCluster: example.source, topics: [{ topic: 'orders', recordsWritten: 2 }] })
  expect(summary.splitBrain.topics[0]?.latestWriteAt).toEqual(expect.any(Number))
  const metrics = await (await request.get('/api/metrics', { headers: asOperator })).text()
  expect(metrics).toContain(`mirrorboard_split_brain_records{mirror="${example.mirror}",topic="orders"} 2`)
})
