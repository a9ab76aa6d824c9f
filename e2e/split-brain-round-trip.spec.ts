import { expect, test } from '@playwright/test'
import { asOperator, asViewer, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, failOver, mirrorStates, workedExample } from './support/worked-example-setup'

/**
 * Issue #33 item 4: a normal round trip (fail over, fail back, fail over the reverse mirror) raised a red
 * split-brain banner telling the operator to point producers at the wrong cluster: it counted the records our own
 * failovers wrote (the PID reset, the aborts) on each old source. After the round trip no notice shows for either
 * mirror; a real producer writing to the reverse mirror's old source afterwards does raise one, naming its
 * transactional id and producer id.
 */
test('a failover round trip raises no split-brain notice; a real write to the old source does, naming the producer', async ({ page, request }, testInfo) => {
  test.setTimeout(150_000)
  const example = await workedExample(request, 'rt')
  const back = `${example.mirror}-back`

  // Fail over, fail back (the reverse mirror cuts the old source back and mirrors the new one), fail over the reverse.
  await failOver(request, example.mirror)
  await okJson(
    await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: back, sourceCluster: example.destination, destinationCluster: example.source, topics: [example.topic] } }),
    201,
  )
  await expect.poll(async () => (await mirrorStates(request, back)).map((partition) => partition.state), SETTLE).toEqual(['MIRRORING'])
  await failOver(request, back)

  await signIn(page, 'viewer', '/')
  await expect(page.getByRole('list', { name: 'Mirrors', exact: true })).toContainText(back)
  const notices = page.getByTestId('split-brain')
  await expect(notices.locator(`[data-mirror="${example.mirror}"]`)).toHaveCount(0)
  await expect(notices.locator(`[data-mirror="${back}"]`)).toHaveCount(0)
  for (const mirror of [example.mirror, back]) {
    const summary = await okJson<{ splitBrain?: { recordsWritten: number } | null }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))
    expect(summary.splitBrain?.recordsWritten ?? 0, `split-brain records of ${mirror} after the round trip`).toBe(0)
  }
  // The mirror page watches its own mirror's answer for the notice, not the whole mirror list (re-read every ~1.6 s before).
  const listReads: string[] = []
  await page.goto(`/mirrors/${back}`)
  await expect(page.getByRole('heading', { level: 1, name: back })).toBeVisible()
  page.on('request', (sent) => {
    if (new URL(sent.url()).pathname === '/api/v1/mirrors') listReads.push(`${sent.url()} from ${page.url()}`)
  })
  await expect(page.getByTestId('split-brain')).toHaveCount(0)
  await lookAt(page, testInfo, 'split-brain-round-trip-quiet')

  // A producer that still writes to the reverse mirror's old source (the first failover's destination): named.
  const producer = await okJson<{ producer: string; producerId: number }>(
    await request.post(`/api/v1/clusters/${example.destination}/producers`, { headers: asOperator, data: { transactionalId: 'billing-late' } }),
    201,
  )
  await okJson(await request.post(`/api/v1/clusters/${example.destination}/producers/${producer.producer}/send`, { headers: asOperator, data: { topic: example.topic, partition: 0, records: [{ key: 'late', value: '1' }] } }))
  await okJson(await request.post(`/api/v1/clusters/${example.destination}/producers/${producer.producer}/commit`, { headers: asOperator }))
  const notice = page.getByTestId('split-brain')
  await expect(notice).toBeVisible({ timeout: 10_000 })
  await expect(notice.getByTestId('split-brain-producers')).toContainText(`billing-late · producer id ${producer.producerId}`)
  expect(listReads, 'mirror list reads from the mirror page').toEqual([])
  await lookAt(page, testInfo, 'split-brain-round-trip-write')
})
