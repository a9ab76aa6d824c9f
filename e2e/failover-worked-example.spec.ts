import { readFile } from 'node:fs/promises'
import { expect, test } from '@playwright/test'
import { asViewer, okJson } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, recordsOf, workedExample } from './support/worked-example-setup'

/**
 * The failover wizard on the KIP's worked example: the preview names both transactions (producers 4001 and
 * 4002 from offsets 0 and 2) and 3 records at risk, the failing lag gate blocks until forced, the button
 * waits for the typed name, progress reaches done, the destination then holds ABORT at 3 and 4 and the
 * reset at 5, and the report names both aborted producers.
 */
test('fail over the worked example through the wizard, step by step', async ({ page, request }, testInfo) => {
  test.setTimeout(90_000)
  const example = await workedExample(request)
  const { mirror } = example
  await signIn(page, 'operator', `/mirrors/${mirror}/failover`)
  await expect(page).toHaveTitle(new RegExp(`Fail over ${mirror}`))

  await expect(page.getByRole('heading', { name: '1. Planned or unplanned' })).toBeVisible()
  await page.getByRole('radio', { name: 'Unplanned failover' }).check()
  await page.getByRole('button', { name: 'Next: Topics' }).click()
  await expect(page.getByRole('heading', { name: '2. Choose the topics' })).toBeVisible()
  await expect(page.getByRole('radio', { name: 'All topics (1)' })).toBeChecked()
  await expect(page.locator('[aria-current="step"]')).toContainText('Topics')
  await lookAt(page, testInfo, 'failover-1-topics')
  await page.getByRole('button', { name: 'Next: Gates' }).click()

  await expect(page.getByRole('heading', { name: '3. Preflight gates' })).toBeVisible()
  const lag = page.locator('[data-gate="lag-threshold"]')
  await expect(lag).toHaveAttribute('data-ok', 'false')
  await expect(lag).toContainText('3 record(s) at risk')
  await expect(page.locator('[data-gate="source-reachable"]')).toHaveAttribute('data-ok', 'true')
  const next = page.getByRole('button', { name: 'Next: Impact' })
  await expect(next).toBeDisabled()
  await lookAt(page, testInfo, 'failover-2-gates')
  await lag.getByRole('checkbox', { name: /Force past this gate/ }).check()
  await expect(next).toBeEnabled()
  await next.click()

  await expect(page.getByRole('heading', { name: '4. Impact preview' })).toBeVisible()
  const row = page.locator('[data-partition="orders-0"]')
  await expect(row).toContainText('pid 4001 · epoch 0 · from 0')
  await expect(row).toContainText('pid 4002 · epoch 0 · from 2')
  await expect(row).toContainText('offsets 3–5')
  await expect(page.locator('[data-figure="Records at risk"] dd').first()).toHaveText('3')
  await expect(page.locator('[data-figure="Transactions to abort"] dd').first()).toHaveText('2')
  await lookAt(page, testInfo, 'failover-3-impact')
  await page.getByRole('button', { name: 'Next: Confirm' }).click()

  await expect(page.getByRole('heading', { name: '5. Confirm the failover' })).toBeVisible()
  const confirm = page.getByRole('button', { name: `Fail over ${mirror}` })
  await expect(confirm).toBeDisabled()
  const field = page.getByLabel(`Type the mirror name ${mirror} to confirm`)
  await field.fill(mirror.toUpperCase())
  await expect(confirm).toBeDisabled()
  await field.fill(mirror)
  await expect(confirm).toBeEnabled()
  await lookAt(page, testInfo, 'failover-4-confirm')
  await confirm.click()

  await expect(page.getByRole('heading', { name: '7. Result' })).toBeVisible({ timeout: 30_000 })
  await expect(page.getByRole('status').filter({ hasText: 'Failover done' })).toBeVisible()
  const outcome = page.locator('[data-partition="orders-0"]').last()
  await expect(outcome).toContainText('ABORT at 3 · pid 4001')
  await expect(outcome).toContainText('ABORT at 4 · pid 4002')
  await expect(outcome).toContainText('⟲ 5')
  const operationId = new URL(page.url()).searchParams.get('operation')
  expect(operationId).toBeTruthy()
  await lookAt(page, testInfo, 'failover-6-result')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the JSON report' }).click()])
  const report = JSON.parse(await readFile((await download.path()) ?? '', 'utf8')) as {
    operation: { id: string; mirror: string }
    confirmation: { forcedGates: Array<{ name: string }>; confirmedBy: string | null }
    partitions: Array<{ aborted: Array<{ producerId: number; offset: number }>; pidResetOffset: number | null }>
    totals: { producersAborted: number[] }
  }
  expect(report.operation).toMatchObject({ id: operationId, mirror })
  expect(report.totals.producersAborted).toEqual([4001, 4002])
  expect(report.partitions[0]?.aborted.map((marker) => [marker.offset, marker.producerId])).toEqual([
    [3, 4001],
    [4, 4002],
  ])
  expect(report.partitions[0]?.pidResetOffset).toBe(5)
  expect(report.confirmation.forcedGates.map((gate) => gate.name)).toEqual(['lag-threshold'])
  expect(report.confirmation.confirmedBy).toMatch(/^session:/)

  // What the destination holds now, as the API and the partition page's tape show it.
  await expect
    .poll(async () => (await recordsOf(request, example.destination)).map((record) => [record.offset, record.type, record.producerId]), SETTLE)
    .toEqual([
      [0, 'DATA', 4001],
      [1, 'DATA', 4001],
      [2, 'DATA', 4002],
      [3, 'ABORT', 4001],
      [4, 'ABORT', 4002],
      [5, 'MIRROR_PID_RESET', null],
    ])
  await page.goto(`/mirrors/${mirror}/partitions/orders/0`)
  const destination = (offset: number) => page.locator(`[data-lane="destination"][data-offset="${offset}"]`)
  await expect(destination(3)).toHaveAttribute('data-type', 'ABORT')
  await expect(destination(4)).toHaveAttribute('data-type', 'ABORT')
  await expect(destination(5)).toHaveAttribute('data-type', 'MIRROR_PID_RESET')

  // The operation page shows the same operation, with the forced gate and who confirmed.
  await page.goto(`/operations/${operationId}`)
  await expect(page.getByTestId('operation-status')).toContainText('Succeeded')
  await expect(page.getByText('Lag threshold', { exact: true })).toBeVisible()
  await expect(page.locator('[data-partition="orders-0"]').last()).toContainText('ABORT at 3 · pid 4001')
  await lookAt(page, testInfo, 'operation-page')

  const audit = await okJson<{ entries: Array<{ dryRun: boolean; outcome: string; request: { force?: string[]; confirm?: string } }> }>(
    await request.get('/api/v1/audit?action=mirror.failover&limit=50', { headers: asViewer }),
  )
  expect(audit.entries.find((entry) => !entry.dryRun && entry.outcome === 'ok' && entry.request.confirm === mirror)?.request.force).toEqual(['lag-threshold'])
})
