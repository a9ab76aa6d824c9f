import { expect, test, type Locator } from '@playwright/test'
import { asOperator, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { createMirroredPair, expectHeaderFits, expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * The cluster page: brokers, topics with their mirror role (the source side from the mirror list, the
 * destination side read-only), consumer groups with their offsets; an unknown cluster is a real 404 page.
 */
test('a cluster page shows brokers, topics with their mirror role and consumer groups', async ({ page, request }, testInfo) => {
  const pair = await createMirroredPair(request, 2)
  const group = unique('billing')
  await okJson(await request.post(`/api/v1/clusters/${pair.source}/topics/${pair.topic}/records`, { headers: asOperator, data: { partition: 0, records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] } }))
  await okJson(await request.post(`/api/v1/clusters/${pair.source}/groups/${group}/offsets`, { headers: asOperator, data: { offsets: [{ topic: pair.topic, partition: 0, offset: 2 }] } }))

  await signIn(page, 'viewer', `/clusters/${pair.source}`)
  await expect(page).toHaveTitle(new RegExp(`^Cluster ${pair.source}`))
  await expect(page.getByRole('heading', { level: 1, name: pair.source })).toBeVisible()
  const brokers = page.getByRole('list', { name: 'Brokers' })
  await expect(brokers.getByRole('listitem')).toHaveCount(3)
  await expect(brokers.locator('[data-alive="true"]')).toHaveCount(3)
  await expect(page.getByRole('heading', { name: 'Brokers (3/3 alive)' })).toBeVisible()

  const topics = page.getByRole('region', { name: 'Topics table' })
  const orders = topics.getByRole('row', { name: new RegExp(`^${pair.topic}\\b`) })
  await expect(orders.getByRole('cell').nth(1)).toHaveText('2')
  await expect(orders).toContainText('writable')
  await expect(orders).toContainText(`source of ${pair.mirror} (to ${pair.destination})`)
  await expect(orders.getByRole('link', { name: pair.mirror })).toHaveAttribute('href', `/mirrors/${pair.mirror}`)
  if (testInfo.project.name === 'phone') await expectTopicCards(topics, orders)

  const groups = page.getByRole('list', { name: 'Consumer groups' })
  await expect(groups).toContainText(group)
  await groups.getByText(group).click()
  await expect(page.getByRole('region', { name: `Committed offsets of ${group}` }).getByRole('row', { name: `${pair.topic} 0 2` })).toBeVisible()

  // Read-only for viewers: the page holds no control that changes anything.
  await expect(page.locator('main').getByRole('button')).toHaveCount(0)
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'cluster-source')

  // As in the full run, where other journeys' mirrors and alerts are present: ten more mirrors into this cluster,
  // with long generated names, each firing DrillOverdue (a drill objective, never drilled; it fires at once), so
  // the header's bell counts at least ten. With "Live" and a two-digit count the phone header's controls ended
  // 9 px past its padding (the full run, with more alerts, scrolled 4 px sideways).
  const fanOut = Array.from({ length: 10 }, (_, index) => ({ mirror: unique(`dr-fan-out-${index}`), topic: `fan-out-${index}` }))
  for (const { mirror, topic } of fanOut) {
    await createTopic(request, pair.source, topic, 1)
    await okJson(
      await request.post('/api/v1/mirrors', {
        headers: asOperator,
        data: { name: mirror, sourceCluster: pair.source, destinationCluster: pair.destination, topics: [topic], config: { objectives: { drillIntervalDays: 1 } } },
      }),
      201,
    )
  }

  await page.goto(`/clusters/${pair.destination}`)
  await expect.poll(async () => Number.parseInt((await page.getByTestId('alert-count').textContent()) ?? '0', 10), { timeout: 20_000 }).toBeGreaterThanOrEqual(10)
  const mirrored = page.getByRole('region', { name: 'Topics table' }).getByRole('row', { name: new RegExp(`^${pair.topic}\\b`) })
  await expect(mirrored).toContainText('read-only')
  await expect(mirrored).toContainText(`destination of ${pair.mirror} (from ${pair.source})`)
  if (testInfo.project.name === 'phone') await expectTopicCards(page.getByRole('region', { name: 'Topics table' }), mirrored)
  const into = page.getByText(/^Mirrors into this cluster: /)
  for (const name of [pair.mirror, ...fanOut.map((entry) => entry.mirror)]) await expect(into).toContainText(name)
  await expectNoSidewaysScroll(page)
  await expectHeaderFits(page)
  await lookAt(page, testInfo, 'cluster-destination')
})

test('an unknown cluster gets a real not-found page with a way back', async ({ page }, testInfo) => {
  await signIn(page, 'viewer')
  const response = await page.goto('/clusters/no-such-cluster')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'Cluster not found' })).toBeVisible()
  await expect(page).toHaveTitle(/Cluster not found/)
  await page.getByRole('link', { name: 'Back to the overview' }).click()
  await expect(page).toHaveURL(/\/$/)
  await page.goto('/clusters/not%20a%20name')
  await expect(page.getByRole('heading', { name: 'Cluster not found' })).toBeVisible()
  await page.goto('/clusters/no-such-cluster')
  await lookAt(page, testInfo, 'cluster-not-found')
})

/**
 * On a phone each topic is a card: its row as wide as the table's box (the 576 px table scrolled sideways inside
 * it) and its columns labelled lines, the name on a line of its own above them.
 */
async function expectTopicCards(region: Locator, row: Locator): Promise<void> {
  expect(await region.evaluate((box) => box.scrollWidth - box.clientWidth), 'the topics table scrolls sideways').toBe(0)
  const [rowBox, regionBox] = [await row.boundingBox(), await region.boundingBox()]
  expect(rowBox!.width).toBeLessThanOrEqual(regionBox!.width)
  const cells = row.getByRole('cell')
  for (const [index, label] of ['Partitions', 'RF', 'Writes', 'Mirror role'].entries()) {
    const cell = cells.nth(index + 1)
    await expect(cell).toHaveAttribute('data-label', label)
    expect(await cell.evaluate((element) => getComputedStyle(element, '::before').content), `${label} is written on its line`).toBe(`"${label}"`)
  }
  const [name, partitions] = [await cells.nth(0).boundingBox(), await cells.nth(1).boundingBox()]
  expect(partitions!.y).toBeGreaterThanOrEqual(name!.y + name!.height)
}
