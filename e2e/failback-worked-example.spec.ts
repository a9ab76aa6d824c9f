import { readFile } from 'node:fs/promises'
import { expect, test } from '@playwright/test'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, failOver, recordsOf, workedExample } from './support/worked-example-setup'

/**
 * The failback wizard on the worked example after its failover: the reverse mirror's dry run cuts the old
 * source back to 3, the export holds exactly offsets 3, 4 and 5, the tapes show the truncation point, and
 * after the typed confirmation the old source's log equals the destination's offset by offset.
 */
test('fail back the worked example: dry run, export of the removed records, confirmation, identical logs', async ({ page, request }, testInfo) => {
  test.setTimeout(150_000)
  const example = await workedExample(request, 'fb')
  await failOver(request, example.mirror)
  await signIn(page, 'operator', `/mirrors/${example.mirror}/failback`)
  await expect(page).toHaveTitle(new RegExp(`Fail back ${example.mirror}`))

  const name = page.getByLabel('Name of the reverse mirror')
  await expect(name).toHaveValue(`${example.mirror}-failback`)
  await lookAt(page, testInfo, 'failback-1-name')
  await name.fill('bad name')
  await expect(page.getByRole('button', { name: 'Next: Dry run' })).toBeDisabled()
  await name.fill(`${example.mirror}-back`)
  await page.getByRole('button', { name: 'Next: Dry run' }).click()

  await expect(page.getByRole('heading', { name: '2. Dry run: what the old source loses' })).toBeVisible()
  const row = page.locator('[data-partition="orders-0"]')
  await expect(row).toContainText('✂ 3')
  await expect(row).toContainText('3')
  const strips = page.getByTestId('truncation-strips-orders-0')
  await expect(strips).toContainText('truncation point 3, 3 records removed from the old source')
  await expect(strips.locator('[data-lane="destination"][data-offset="3"]')).toHaveAttribute('data-type', 'COMMIT')
  await lookAt(page, testInfo, 'failback-2-dry-run')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download the 3 records that will be removed/ }).click()])
  const lines = (await readFile((await download.path()) ?? '', 'utf8')).split('\n').filter((line) => line !== '')
  const exported = lines.map((line) => JSON.parse(line) as { topic: string; partition: number; offset: number; type: string; producerId: number | null; key: string | null; value: string | null })
  expect(exported.map((record) => [record.topic, record.partition, record.offset, record.type, record.producerId, record.key, record.value])).toEqual([
    ['orders', 0, 3, 'COMMIT', 4001, null, null],
    ['orders', 0, 4, 'DATA', 4003, 'Y', '5'],
    ['orders', 0, 5, 'DATA', null, 'Z', '10'],
  ])
  await expect(page.getByRole('status').filter({ hasText: 'Exported 3 records' })).toBeVisible()

  await page.getByRole('button', { name: 'Next: Confirm' }).click()
  const confirm = page.getByRole('button', { name: `Fail back to ${example.source}` })
  await expect(confirm).toBeDisabled()
  await page.getByLabel(`Type the old source's name ${example.source} to confirm`).fill(example.source)
  await expect(confirm).toBeEnabled()
  await lookAt(page, testInfo, 'failback-3-confirm')
  await confirm.click()

  await expect(page.getByTestId('logs-match')).toBeVisible({ timeout: 30_000 })
  await expect(page.locator('[data-partition="orders-0"]')).toContainText('✂ 3')
  // The last step's tapes show the old source as it is now, without a reload: cut at 3, then the failover's aborts
  // and PID reset as mirrored back (it kept the dry run's COMMIT at 3 and DATA at 4, the records removed).
  const after = page.getByTestId('truncation-strips-orders-0')
  await expect(after.locator('[data-lane="destination"][data-offset="3"]')).toHaveAttribute('data-type', 'ABORT', { timeout: 10_000 })
  await expect(after.locator('[data-lane="destination"][data-offset="5"]')).toHaveAttribute('data-type', 'MIRROR_PID_RESET')
  await lookAt(page, testInfo, 'failback-5-done')
  await expect
    .poll(async () => JSON.stringify(await recordsOf(request, example.source)) === JSON.stringify(await recordsOf(request, example.destination)), SETTLE)
    .toBe(true)
  expect((await recordsOf(request, example.source)).map((record) => [record.offset, record.type, record.producerId])).toEqual([
    [0, 'DATA', 4001],
    [1, 'DATA', 4001],
    [2, 'DATA', 4002],
    [3, 'ABORT', 4001],
    [4, 'ABORT', 4002],
    [5, 'MIRROR_PID_RESET', null],
  ])
})
