import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import { buildStateGraph } from '../lib/graph/state-graph'
import { MIRROR_PARTITION_STATES } from '../lib/mirror/states'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * The partition page on the KIP's worked example (kip-1279-excerpt.txt), set up through the API the way
 * e2e/api-mirrors.spec.ts does: producers 4001 and 4002 write A, B and X; the mirror copies offsets 0–2 and
 * is paused; then 4001 commits, 4003 writes Y and a plain write adds Z. The page must read like the KIP's
 * tables: source 0–5 with the COMMIT at 3, destination 0–2, offsets 3–5 at risk.
 */

const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }
const GRAPH = buildStateGraph()

interface WorkedExample {
  source: string
  destination: string
  mirror: string
  path: string
}

async function partitionOf(request: APIRequestContext, mirror: string): Promise<{ state: string; destinationLogEndOffset: number }> {
  const { partitions } = await okJson<{ partitions: Array<{ state: string; destinationLogEndOffset: number }> }>(
    await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }),
  )
  return partitions[0]!
}

async function workedExample(request: APIRequestContext): Promise<WorkedExample> {
  const source = unique('kip-a')
  const destination = unique('kip-b')
  const mirror = unique('dr')
  await createCluster(request, source, { firstProducerId: 4001 })
  await createCluster(request, destination, { firstProducerId: 9001 })
  await createTopic(request, source, 'orders')
  const base = `/api/v1/clusters/${source}`
  const handles: Record<string, string> = {}
  for (const id of ['tx-4001', 'tx-4002', 'tx-4003']) {
    const created = await okJson<{ producer: string; producerId: number }>(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: id } }), 201)
    handles[id] = created.producer
  }
  const send = async (id: string, records: Array<{ key: string; value: string }>) =>
    okJson(await request.post(`${base}/producers/${handles[id]}/send`, { headers: asOperator, data: { topic: 'orders', partition: 0, records } }))
  await send('tx-4001', [
    { key: 'A', value: '1' },
    { key: 'B', value: '2' },
  ])
  await send('tx-4002', [{ key: 'X', value: '9' }])
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await expect.poll(async () => partitionOf(request, mirror), SETTLE).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 })
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await partitionOf(request, mirror)).state, SETTLE).toBe('PAUSED')
  await okJson(await request.post(`${base}/producers/${handles['tx-4001']}/commit`, { headers: asOperator }))
  await send('tx-4003', [{ key: 'Y', value: '5' }])
  await okJson(await request.post(`${base}/topics/orders/records`, { headers: asOperator, data: { partition: 0, idempotent: false, records: [{ key: 'Z', value: '10' }] } }))
  return { source, destination, mirror, path: `/mirrors/${mirror}/partitions/orders/0` }
}

function cell(page: Page, lane: 'source' | 'destination', offset: number): Locator {
  return page.locator(`[role="gridcell"][data-lane="${lane}"][data-offset="${offset}"]`)
}

/** The tape as the KIP's tables: [offset, type] of every cell holding a record. */
async function tape(page: Page, lane: 'source' | 'destination'): Promise<Array<[number, string]>> {
  return page
    .locator(`[role="gridcell"][data-lane="${lane}"][data-type]`)
    .evaluateAll((cells) => cells.map((element) => [Number(element.getAttribute('data-offset')), element.getAttribute('data-type') ?? ''] as [number, string]))
}

async function atRisk(page: Page, lane: 'source' | 'destination'): Promise<number[]> {
  return page.locator(`[role="gridcell"][data-lane="${lane}"][data-at-risk]`).evaluateAll((cells) => cells.map((element) => Number(element.getAttribute('data-offset'))))
}

test('the worked example reads like the KIP tables: source 0-5 with the COMMIT at 3, destination 0-2, 3-5 at risk, every state and the path taken', async ({ page, request }, testInfo) => {
  const example = await workedExample(request)
  await signIn(page, 'viewer', example.path)
  await page.goto(example.path)
  await expect(page).toHaveTitle(`${example.mirror} / orders / 0 · Mirrorboard`)
  await expect(page.getByRole('heading', { level: 1 })).toContainText('orders / 0')

  await test.step('the header: state since when, lag and positions', async () => {
    await expect(page.locator('header [data-state="PAUSED"]').first()).toBeVisible()
    // The offset lag and the records at risk, both read from the source log now: the mirror is paused, so its
    // last fetch's figure is only a lower bound (it read '0 records' before the page took the current reading).
    await expect(page.getByText('3 records', { exact: true })).toHaveCount(2)
    await expect(page.getByTestId('partition-at-risk')).toHaveText('3 records')
  })

  await test.step('the tapes, aligned by offset', async () => {
    await expect(cell(page, 'source', 5)).toHaveAttribute('data-type', 'DATA')
    expect(await tape(page, 'source')).toEqual([
      [0, 'DATA'],
      [1, 'DATA'],
      [2, 'DATA'],
      [3, 'COMMIT'],
      [4, 'DATA'],
      [5, 'DATA'],
    ])
    expect(await tape(page, 'destination')).toEqual([
      [0, 'DATA'],
      [1, 'DATA'],
      [2, 'DATA'],
    ])
    const kipRows = [
      [0, 'DATA A=1, producer 4001'],
      [1, 'DATA B=2, producer 4001'],
      [2, 'DATA X=9, producer 4002'],
      [3, 'COMMIT, producer 4001'],
      [4, 'DATA Y=5, producer 4003'],
      [5, 'DATA Z=10, no producer id'],
    ] as const
    for (const [offset, text] of kipRows) await expect(cell(page, 'source', offset)).toHaveAccessibleName(new RegExp(`^source offset ${offset}, ${text}`))
    for (const [offset, text] of kipRows.slice(0, 3)) await expect(cell(page, 'destination', offset)).toHaveAccessibleName(new RegExp(`^destination offset ${offset}, ${text}`))
    await expect(cell(page, 'source', 3)).toContainText('✓')
    expect(await atRisk(page, 'source')).toEqual([3, 4, 5])
    expect(await atRisk(page, 'destination')).toEqual([3, 4, 5])
    await expect(page.getByTestId('mirrored-line')).toContainText('mirrored to 3')
    await expect(page.getByText('3 records at risk')).toBeVisible()
  })

  await test.step('the state graph: every state and transition, PAUSED now, the path taken drawn bold', async () => {
    // The graph loads as its place nears the screen (lazy-state-graph.tsx), as it does for a reader scrolling down.
    await page.getByRole('heading', { name: 'State graph', exact: true }).scrollIntoViewIfNeeded()
    const graph = page.getByRole('figure', { name: /State graph/ })
    for (const state of MIRROR_PARTITION_STATES) await expect(graph.locator(`.react-flow__node [data-state="${state}"]`)).toHaveCount(1)
    await expect(graph.locator('.react-flow__edge')).toHaveCount(GRAPH.edges.length)
    await expect(graph.locator('[data-current]')).toHaveAttribute('data-state', 'PAUSED')
    await expect(graph.locator('[data-current]')).toContainText('now')
    const taken = await graph.locator('.react-flow__edge:has(path[data-taken])').evaluateAll((edges) => edges.map((edge) => edge.getAttribute('data-id')).sort())
    expect(taken).toEqual(['MIRRORING->PAUSING', 'PAUSING->PAUSED', 'PREPARING->MIRRORING', 'UNKNOWN->PREPARING'])
    // An edge's events show on focus, not only on hover.
    await graph.locator('.react-flow__edge[data-id="MIRRORING->PAUSING"]').focus()
    await expect(graph.getByText('on pause')).toBeVisible()
    // The voted KIP's names under ours, where they differ.
    await expect(graph.locator('[data-kip-name]')).toHaveCount(2)
    await expect(graph.locator('[data-state="PREPARING"] [data-kip-name]')).toHaveText('KIP: LOG_ALIGNMENT')
    await expect(graph.locator('[data-state="ULE_LOG_TRUNCATION"] [data-kip-name]')).toHaveText('KIP: ULE_RECOVERY')
  })

  await test.step('the state legend explains every state with its KIP-1279 name', async () => {
    await page.getByText(/What each state means, with its KIP-1279 name/).click()
    const legend = page.getByRole('definition').filter({ hasText: 'Looking up the last mirror position' })
    await expect(legend).toBeVisible()
    await expect(page.locator('[data-legend-state]')).toHaveCount(MIRROR_PARTITION_STATES.length)
    await expect(page.locator('[data-legend-state="PREPARING"] dt')).toContainText('KIP-1279: LOG_ALIGNMENT')
    await expect(page.locator('[data-legend-state="ULE_LOG_TRUNCATION"] dt')).toContainText('KIP-1279: ULE_RECOVERY')
    await expect(page.locator('[data-legend-state="MIRRORING"] dt')).not.toContainText('KIP-1279')
  })

  await test.step('the timeline, newest first, with reasons', async () => {
    const rows = page.getByRole('list', { name: 'Transitions, newest first' }).getByRole('listitem')
    await expect(rows).toHaveCount(4)
    expect(await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-to')))).toEqual(['PAUSED', 'PAUSING', 'MIRRORING', 'PREPARING'])
    await expect(rows.nth(1)).toContainText('pause requested by operator')
    await rows.nth(0).getByRole('button', { name: /Details/ }).click()
    await expect(rows.nth(0)).toContainText('still there')
  })

  await test.step('the keyboard selects an offset and the details show both records', async () => {
    await cell(page, 'source', 0).focus()
    for (let step = 0; step < 3; step++) await page.keyboard.press('ArrowRight')
    await expect(cell(page, 'source', 3)).toBeFocused()
    await expect(cell(page, 'source', 3)).toHaveAttribute('aria-selected', 'true')
    const details = page.getByRole('region', { name: `source · ${example.source}` })
    await expect(details).toContainText('COMMIT')
    await expect(details).toContainText('4001')
    await expect(page.getByRole('region', { name: `destination · ${example.destination}` })).toContainText('Not here')
    await page.keyboard.press('ArrowDown')
    await expect(cell(page, 'destination', 3)).toBeFocused()
  })

  await test.step('a viewer sees no control that changes anything', async () => {
    for (const name of ['Pause topic', 'Resume topic', 'Recover topic']) await expect(page.getByRole('button', { name })).toHaveCount(0)
    await expect(page.getByRole('link', { name: 'Failover…' })).toHaveCount(0)
  })

  await cell(page, 'source', 3).click()
  await lookAt(page, testInfo, 'partition-worked-example')

  await test.step('at 390 px the tapes scroll inside their box, never the page', async () => {
    const pageScrolls = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
    expect(pageScrolls).toBe(false)
  })
})

test('an operator resumes from the partition page: a refusal shows the API error and changes nothing, then the destination catches up', async ({ page, request }, testInfo) => {
  const example = await workedExample(request)
  await signIn(page, 'operator', example.path)
  await page.goto(example.path)
  await expect(cell(page, 'source', 5)).toHaveAttribute('data-type', 'DATA')

  await test.step('refused: the request reaches the server as a recover, which PAUSED partitions refuse', async () => {
    // The real server's refusal, not a made-up one: the resume is sent on as a recover.
    await page.route('**/api/v1/mirrors/*/topics/resume', (route) => route.continue({ url: route.request().url().replace('/topics/resume', '/topics/recover') }))
    await page.getByRole('button', { name: 'Resume topic' }).click()
    const dialog = page.getByRole('dialog', { name: 'Resume mirroring of orders?' })
    await expect(dialog).toContainText('the partition of orders')
    await dialog.getByRole('button', { name: 'Resume topic' }).click()
    const refusal = page.getByRole('alert').filter({ hasText: 'Resume topic refused' })
    await expect(refusal).toContainText('INVALID_MIRROR_STATE')
    await expect(refusal).toContainText('in FAILED; orders-0 is PAUSED')
    await expect(page.locator('header [data-state="PAUSED"]').first()).toBeVisible()
    expect((await partitionOf(request, example.mirror)).state).toBe('PAUSED')
    await lookAt(page, testInfo, 'partition-action-refused')
    await page.unroute('**/api/v1/mirrors/*/topics/resume')
  })

  await test.step('retried: mirroring resumes and the destination gets the COMMIT at 3, Y and Z', async () => {
    await page.getByRole('alert').filter({ hasText: 'Resume topic refused' }).getByRole('button', { name: 'Retry' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Resume requested for orders' })).toBeVisible()
    await expect(page.locator('header [data-state="MIRRORING"]').first()).toBeVisible({ timeout: 15_000 })
    await expect.poll(() => tape(page, 'destination'), SETTLE).toEqual([
      [0, 'DATA'],
      [1, 'DATA'],
      [2, 'DATA'],
      [3, 'COMMIT'],
      [4, 'DATA'],
      [5, 'DATA'],
    ])
    await expect.poll(() => atRisk(page, 'source'), SETTLE).toEqual([])
    await expect(page.getByText('nothing is at risk')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Pause topic' })).toBeVisible()
  })
})

// @wide-only: the page's phone layout is shown by the first journey; this one adds two mirrors and a failback.
test('after failover the destination shows ABORT 4001 at 3, ABORT 4002 at 4 and the PID reset at 5; after failback the old source shows the cut at 3', { tag: '@wide-only' }, async ({ page, request }, testInfo) => {
  // Two mirrors, a failover and a failback: the slowest journey here, more so on a shared machine.
  test.setTimeout(150_000)
  const example = await workedExample(request)
  const accepted = await okJson<{ operation: string }>(await request.post(`/api/v1/mirrors/${example.mirror}/failover`, { headers: asOperator, data: { confirm: example.mirror } }), 202)
  await expect
    .poll(async () => (await okJson<{ status: string }>(await request.get(`/api/v1/operations/${accepted.operation}`, { headers: asViewer }))).status, SETTLE)
    .toBe('succeeded')
  await signIn(page, 'viewer', example.path)
  await page.goto(example.path)

  await test.step('the destination after STOPPING, as the KIP third table', async () => {
    await expect(cell(page, 'destination', 5)).toHaveAttribute('data-type', 'MIRROR_PID_RESET')
    expect(await tape(page, 'destination')).toEqual([
      [0, 'DATA'],
      [1, 'DATA'],
      [2, 'DATA'],
      [3, 'ABORT'],
      [4, 'ABORT'],
      [5, 'MIRROR_PID_RESET'],
    ])
    await expect(cell(page, 'destination', 3)).toHaveAccessibleName(/^destination offset 3, ABORT, producer 4001/)
    await expect(cell(page, 'destination', 4)).toHaveAccessibleName(/^destination offset 4, ABORT, producer 4002/)
    await expect(cell(page, 'destination', 5)).toContainText('⟲')
    // The COMMIT at 3 never reached the destination: 3-5 of the source are lost to its readers.
    expect(await atRisk(page, 'source')).toEqual([3, 4, 5])
    await expect(page.getByTestId('mirrored-line')).toContainText('mirrored to 3')
    await expect(page.locator('header [data-state="STOPPED"]').first()).toBeVisible()
    await lookAt(page, testInfo, 'partition-after-failover', { alsoNarrow: true })
  })

  await test.step('the failback mirror: the old source cut back to 3, three records removed, then matching', async () => {
    const back = unique('back')
    await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: back, sourceCluster: example.destination, destinationCluster: example.source, topics: ['orders'] } }), 201)
    // MIRRORING comes first; the old source then fetches the markers back from the new one.
    await expect.poll(async () => partitionOf(request, back), SETTLE).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 6 })
    await page.goto(`/mirrors/${back}/partitions/orders/0`)
    await expect(page.getByText(/Last truncation cut .+ at 3, removing 3 records/)).toBeVisible()
    await expect(cell(page, 'destination', 5)).toHaveAttribute('data-type', 'MIRROR_PID_RESET')
    expect(await tape(page, 'destination')).toEqual(await tape(page, 'source'))
    await expect(page.getByText('cut at 3')).toBeVisible()
    await page.getByRole('button', { name: '✂ Truncation point' }).click()
    await expect(cell(page, 'destination', 3)).toHaveAttribute('aria-selected', 'true')
    await lookAt(page, testInfo, 'partition-after-failback', { alsoNarrow: true })
  })
})

test('an unknown partition or mirror is a real not-found page with a way back', async ({ page, request }, testInfo) => {
  const source = unique('nf-a')
  const destination = unique('nf-b')
  const mirror = unique('nf')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders')
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await signIn(page, 'viewer', '/')

  const missingPartition = await page.goto(`/mirrors/${mirror}/partitions/orders/7`)
  expect(missingPartition?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: `Mirror ${mirror} has no partition orders / 7` })).toBeVisible()
  await expect(page.getByRole('link', { name: `Back to mirror ${mirror}` })).toHaveAttribute('href', `/mirrors/${mirror}`)
  await lookAt(page, testInfo, 'partition-not-found')

  const missingTopic = await page.goto(`/mirrors/${mirror}/partitions/nope/0`)
  expect(missingTopic?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: `Mirror ${mirror} has no partition nope / 0` })).toBeVisible()

  const missingMirror = await page.goto('/mirrors/no-such-mirror/partitions/orders/0')
  expect(missingMirror?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'There is no mirror no-such-mirror' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toBeVisible()
})
