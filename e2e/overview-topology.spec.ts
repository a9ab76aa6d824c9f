import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { asOperator, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { createMirroredPair, expectNoSidewaysScroll, expectPartitions } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * The overview on two clusters and a mirror: the graph shows both clusters and the mirror as an edge whose
 * label leads to the mirror page, partitions are counted by state, and a paused partition is listed under
 * "needs attention" with a link to its partition page. Other journeys share the server, so counts are
 * checked for what this test made, not for exact totals.
 */
test('the overview draws the clusters and the mirror, counts partitions by state and lists a paused partition', async ({ page, request }, testInfo) => {
  const pair = await createMirroredPair(request)
  const held = unique('held')
  await createTopic(request, pair.source, 'clicks', 1)
  await okJson(
    await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: held, sourceCluster: pair.source, destinationCluster: pair.destination, topics: ['clicks'] } }),
    201,
  )
  await expectPartitions(request, held, 'MIRRORING', 1)
  await okJson(await request.post(`/api/v1/mirrors/${held}/topics/pause`, { headers: asOperator, data: {} }))
  await expectPartitions(request, held, 'PAUSED', 1)

  await signIn(page, 'viewer')
  await expect(page).toHaveTitle(/^Overview/)
  const graph = page.getByRole('group', { name: /Topology graph/ })
  await expect(graph.getByRole('link', { name: new RegExp(`^Cluster ${pair.source} ?:`) })).toContainText('embedded')
  await expect(graph.getByRole('link', { name: new RegExp(`^Cluster ${pair.source} ?:`) })).toContainText('3/3 brokers')
  await expect(graph.getByRole('link', { name: new RegExp(`^Cluster ${pair.destination} ?:`) })).toBeVisible()
  // (Chromium's accessible name puts a space where a visually hidden span starts: "Mirror dr , east …".)
  const edge = graph.getByRole('link', { name: new RegExp(`^Mirror ${pair.mirror} ?, ${pair.source} to ${pair.destination}: Mirroring`) })
  await expect(edge).toBeVisible()
  await expect(graph.getByRole('link', { name: new RegExp(`^Mirror ${held} ?, .*: Paused`) })).toBeVisible()
  // The same mirrors as text, for screen readers and small screens.
  await expect(page.getByRole('list', { name: 'Mirrors', exact: true }).getByRole('link', { name: pair.mirror, exact: true })).toBeVisible()

  const counts = page.getByRole('list', { name: 'Partitions per state' })
  await expect(counts.locator('[data-state="MIRRORING"]')).toContainText(/MIRRORING\s*[1-9]/)
  await expect(counts.locator('[data-state="PAUSED"]')).toContainText(/PAUSED\s*[1-9]/)
  await expect(counts.locator('[data-state="FAILED"]')).toBeVisible()

  // One line per mirror and finding (issue #33), expandable to its partitions.
  const attention = page.getByRole('list', { name: 'What needs attention, by mirror and cause, worst first' })
  const paused = attention.locator('li[data-kind="paused"]').filter({ hasText: held })
  await expect(paused).toContainText(/\d+ paused/)
  await paused.locator('summary').click()
  const pausedItem = paused.getByRole('link', { name: 'clicks-0', exact: true })
  await expect(pausedItem).toBeVisible()
  await expect(pausedItem).toHaveAttribute('href', `/mirrors/${held}/partitions/clicks/0`)

  // A viewer sees no control that changes anything: the only buttons in the page are the graph's zoom.
  const buttons = await page.locator('main').getByRole('button').evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? element.textContent))
  expect(buttons.every((name) => name === 'Zoom In' || name === 'Zoom Out' || name === 'Fit View')).toBe(true)

  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'overview')

  // The edge leads to the mirror page. With every other journey's mirrors on the same server the graph is
  // drawn small on a phone, where people use the list under it instead, so the click goes through the list there.
  await expect(edge).toHaveAttribute('href', `/mirrors/${pair.mirror}`)
  if (testInfo.project.name === 'phone') await page.getByRole('list', { name: 'Mirrors', exact: true }).getByRole('link', { name: pair.mirror, exact: true }).click()
  else await edge.click()
  // The next page is rendered when it is asked for (links do not prefetch): on a busy machine that took over 5 s.
  await expect(page).toHaveURL(new RegExp(`/mirrors/${pair.mirror}$`), { timeout: 20_000 })
})

test('a cluster box in the graph opens its cluster page, by keyboard too', async ({ page, request }) => {
  const pair = await createMirroredPair(request, 1)
  await signIn(page, 'viewer')
  const node = page.getByRole('group', { name: /Topology graph/ }).getByRole('link', { name: new RegExp(`^Cluster ${pair.destination} ?:`) })
  await node.focus()
  await expect(node).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`/clusters/${pair.destination}$`), { timeout: 20_000 })
  await expect(page.getByRole('heading', { level: 1, name: pair.destination })).toBeVisible()
})

test('the graph zooms by its buttons and pans by dragging, and a drag over a box opens nothing @wide-only', async ({ page, request }) => {
  const { graph, svg, node } = await openHydratedTopology(page, request)
  // Banners of other journeys' incidents can push the graph below the fold, where the mouse does not reach.
  await svg.scrollIntoViewIfNeeded()
  const fitted = await svg.getAttribute('viewBox')
  const box = (await node.boundingBox())!
  // A drag that starts on a cluster's link moves the picture and does not follow the link.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 10, { steps: 4 })
  await page.mouse.up()
  const panned = await svg.getAttribute('viewBox')
  expect(panned).not.toBe(fitted)
  expect((await node.boundingBox())!.x).toBeGreaterThan(box.x + 20)

  await graph.getByRole('button', { name: 'Zoom In' }).click()
  await expect(svg).not.toHaveAttribute('viewBox', panned!)
  expect((await node.boundingBox())!.width).toBeGreaterThan(box.width * 1.1)
  await expect(page).toHaveURL(/\/$/)

  await graph.getByRole('button', { name: 'Fit View' }).click()
  await expect(svg).toHaveAttribute('viewBox', fitted!)
})

/**
 * Touch, as on a phone: one finger drags the picture (starting on a cluster's box, which it does not open)
 * and two fingers spread apart zoom it in. The touches go through Chromium's own input pipeline (CDP
 * Input.dispatchTouchEvent), so the graph's touch-action and pointer handling are what is tested.
 */
test('the graph pans under one finger and zooms under a two-finger pinch', async ({ page, request }) => {
  const { svg, node } = await openHydratedTopology(page, request)
  await svg.scrollIntoViewIfNeeded()
  const touch = await page.context().newCDPSession(page)
  type Point = { x: number; y: number }
  const send = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: Point[]) =>
    touch.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((point, id) => ({ x: Math.round(point.x), y: Math.round(point.y), id })) })
  /** Every finger from its start to its end in `steps` moves, then lifted. */
  const gesture = async (fingers: Array<{ from: Point; to: Point }>, steps = 6) => {
    await send('touchStart', fingers.map(({ from }) => from))
    for (let step = 1; step <= steps; step++) {
      await send('touchMove', fingers.map(({ from, to }) => ({ x: from.x + ((to.x - from.x) * step) / steps, y: from.y + ((to.y - from.y) * step) / steps })))
    }
    await send('touchEnd', [])
  }

  const fitted = await svg.getAttribute('viewBox')
  const box = (await node.boundingBox())!
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  // Mostly sideways: a fitted picture leaves vertical swipes to the page's own scrolling.
  await gesture([{ from: centre, to: { x: centre.x + 60, y: centre.y + 4 } }])
  await expect(svg).not.toHaveAttribute('viewBox', fitted!)
  await expect.poll(async () => (await node.boundingBox())!.x).toBeGreaterThan(box.x + 30)
  await expect(page).toHaveURL(/\/$/)

  const panned = (await node.boundingBox())!
  // Both fingers on the picture, wherever the pan left the box: around the graph's own centre (around the box's,
  // a finger fell off the picture's edge when the box sat near it, as it does with few clusters on the server).
  const frame = (await svg.boundingBox())!
  const middle = { x: frame.x + frame.width / 2, y: frame.y + frame.height / 2 }
  await gesture([
    { from: { x: middle.x - 20, y: middle.y }, to: { x: middle.x - 80, y: middle.y } },
    { from: { x: middle.x + 20, y: middle.y }, to: { x: middle.x + 80, y: middle.y } },
  ])
  await expect.poll(async () => (await node.boundingBox())!.width).toBeGreaterThan(panned.width * 1.5)
  await expect(page).toHaveURL(/\/$/)
})

/** A mirrored pair on the overview, signed in as viewer, once the page's scripts run: zoom and pan come with
 * hydration (the picture itself is in the HTML). */
async function openHydratedTopology(page: Page, request: APIRequestContext) {
  const pair = await createMirroredPair(request, 1)
  await signIn(page, 'viewer')
  const graph = page.getByRole('group', { name: /Topology graph/ })
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveAttribute('data-stream', 'open')
  return { graph, svg: graph.getByTestId('topology-svg'), node: graph.getByRole('link', { name: new RegExp(`^Cluster ${pair.source} ?:`) }) }
}
