import { readFile } from 'node:fs/promises'
import type { APIRequestContext } from '@playwright/test'
import { expect, test } from './support/csp'
import { asOperator, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, failOver, mirrorStates } from './support/worked-example-setup'

/**
 * Rehearsing and verifying a mirror from its page: the worked example's first three offsets mirrored with both
 * transactions open. The Drills tab runs a drill whose copy gets ABORT 4001 at 3, ABORT 4002 at 4 and the reset
 * at 5 while the mirror keeps MIRRORING; the drill page shows every check and downloads its report; a refused
 * drill shows the API's code; the Verifications tab verifies the mirror identical; a failover's post-mortem downloads
 * as Markdown from its operation page, with the verification that ran by itself. Every page is checked against
 * the Content-Security-Policy (support/csp.ts).
 */

async function mirroredWithOpenTransactions(request: APIRequestContext): Promise<{ source: string; destination: string; mirror: string }> {
  const source = unique('dr-a')
  const destination = unique('dr-b')
  const mirror = unique('dr')
  await createCluster(request, source, { brokers: 1, firstProducerId: 4001 })
  await createCluster(request, destination, { brokers: 1, firstProducerId: 9001 })
  await createTopic(request, source, 'orders')
  const base = `/api/v1/clusters/${source}`
  const producer = async (id: string) => (await okJson<{ producer: string }>(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: `${mirror}-${id}` } }), 201)).producer
  const p4001 = await producer('4001')
  const p4002 = await producer('4002')
  const send = async (handle: string, key: string, value: string) =>
    okJson(await request.post(`${base}/producers/${handle}/send`, { headers: asOperator, data: { topic: 'orders', partition: 0, records: [{ key, value }] } }))
  await send(p4001, 'A', '1')
  await send(p4001, 'B', '2')
  await send(p4002, 'X', '9')
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await expect.poll(async () => (await mirrorStates(request, mirror)).map((p) => [p.state, p.destinationLogEndOffset]), SETTLE).toEqual([['MIRRORING', 3]])
  return { source, destination, mirror }
}

test('rehearse a failover from the mirror page: the copy gets the markers, the mirror keeps MIRRORING', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000)
  const { mirror, destination } = await mirroredWithOpenTransactions(request)
  await signIn(page, 'operator', `/mirrors/${mirror}?tab=drills`)
  await expect(page.getByRole('link', { name: 'Drills', exact: true })).toHaveAttribute('aria-current', 'page')
  await expect(page.getByText('No drill yet')).toBeVisible()
  await expect(page.getByTestId('drill-cadence').first()).toContainText('Last successful drill never')
  await lookAt(page, testInfo, 'drills-tab-empty')

  await page.getByRole('button', { name: 'Run a drill' }).click()
  const row = page.locator('[data-drill]').first()
  await expect(row).toContainText('Succeeded', { timeout: 30_000 })
  await expect(row).toContainText('7 of 7 checks passed')
  await expect(page.getByTestId('drill-cadence').first()).toContainText('Last successful drill today')
  await lookAt(page, testInfo, 'drills-tab-history')

  await row.getByRole('link').first().click()
  await expect(page).toHaveURL(/\/drills\/d-/)
  await expect(page.getByRole('heading', { name: `Drill of ${mirror}` })).toBeVisible()
  await expect(page.getByTestId('drill-status')).toContainText('Succeeded')
  for (const name of ['markers-as-planned', 'read-committed', 'group-offsets', 'idempotent-producer', 'transactional-producer', 'source-untouched', 'production-kept-mirroring']) {
    await expect(page.locator(`[data-check="${name}"]`)).toHaveAttribute('data-ok', 'true')
  }
  const markers = page.locator('[data-partition="orders-0"]')
  await expect(markers).toContainText('ABORT at 3 · pid 4001')
  await expect(markers).toContainText('ABORT at 4 · pid 4002')
  await expect(markers).toContainText('PID reset at 5')
  await lookAt(page, testInfo, 'drill-page')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the report (Markdown)' }).click()])
  const report = await readFile((await download.path()) ?? '', 'utf8')
  expect(report).toContain(`# Drill of ${mirror}`)
  expect(report).toContain('| orders-0 | 3 | 3 | 4001, 4002 | ABORT 4001 at 3, ABORT 4002 at 4, MIRROR_PID_RESET at 5 |')

  // The overview says which mirrors were rehearsed lately.
  await page.goto('/')
  // Other journeys' mirrors share the server: the one drilled today counts among those rehearsed lately.
  await expect(page.getByRole('region', { name: 'Failover drills' }).getByTestId('drill-summary')).toContainText(/[1-9]\d* of \d+ mirrors? rehearsed in the last 7 days/)
  await lookAt(page, testInfo, 'overview-drills')

  // The production destination was not touched, and still mirrors.
  const records = await okJson<{ records: Array<{ offset: number; type: string }> }>(await request.get(`/api/v1/clusters/${destination}/topics/orders/partitions/0/records`, { headers: asOperator }))
  expect(records.records.map((r) => [r.offset, r.type])).toEqual([
    [0, 'DATA'],
    [1, 'DATA'],
    [2, 'DATA'],
  ])
  expect((await mirrorStates(request, mirror))[0]?.state).toBe('MIRRORING')

  // A mirror with nothing MIRRORING: the refusal shows the API's code, and nothing starts.
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')
  await page.goto(`/mirrors/${mirror}?tab=drills`)
  await page.getByRole('button', { name: 'Run a drill' }).click()
  const refused = page.getByRole('alert').filter({ hasText: 'The drill was not started' })
  await expect(refused).toContainText('INVALID_MIRROR_STATE')
  await expect(refused).toContainText('no partition of orders is MIRRORING')
  await lookAt(page, testInfo, 'drills-tab-refused')
  await expect(page.locator('[data-drill]')).toHaveCount(1)
})

test('verify a mirror, then read the post-mortem of its failover with the verification that ran by itself', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000)
  const { mirror } = await mirroredWithOpenTransactions(request)
  await signIn(page, 'operator', `/mirrors/${mirror}?tab=verifications`)
  await expect(page.getByText('No verification yet')).toBeVisible()
  await page.getByRole('button', { name: 'Verify now' }).click()
  const row = page.locator('[data-verification]').first()
  await expect(row).toContainText('Identical', { timeout: 30_000 })
  await expect(row).toContainText('1 of 1 identical')
  // Who started it, in words (lib/ui/requester-name.ts), never the raw session id the browser signed in under.
  await expect(row).toContainText('someone signed in with the operator token')
  await expect(row).not.toContainText('session:')
  await lookAt(page, testInfo, 'verifications-tab')
  await row.getByRole('link').first().click()
  await expect(page.getByTestId('verification-status')).toContainText('Identical')
  await expect(page.locator('[data-partition="orders-0"]')).toContainText('identical up to offset 3')
  await expect(page.getByText('someone signed in with the operator token')).toBeVisible()
  await lookAt(page, testInfo, 'verification-page')

  const operation = await failOver(request, mirror)
  await page.goto(`/operations/${operation}`)
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the post-mortem (Markdown)' }).click()])
  const postMortem = await readFile((await download.path()) ?? '', 'utf8')
  expect(postMortem).toContain(`# Failover of ${mirror}: post-mortem`)
  expect(postMortem).toContain('| orders-0 | STOPPED | epoch 0, offset 3 | 3 (producer 4001, epoch 0); 4 (producer 4002, epoch 0) | 5 |')
  await expect.poll(async () => {
    const again = await page.request.get(`/api/v1/operations/${operation}/report?format=md`)
    return (await again.text()).includes('| orders-0 | identical | identical up to offset 3 | 0 |')
  }, SETTLE).toBe(true)
  await page.goto(`/mirrors/${mirror}?tab=verifications`)
  await expect(page.locator('[data-verification]').first()).toContainText('after a failover')
  await lookAt(page, testInfo, 'verifications-after-failover')
})
