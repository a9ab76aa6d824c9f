import { expect, test } from '../support/csp'
import { lookAt } from '../support/look'
import { signIn } from '../support/session'

/**
 * The demo's "Rehearse before you need it" from the control room: a drill of a mirror, a byte rotted on the
 * destination's disk, a verification that names its offset, the byte healed and verified identical. Then the
 * verification's page lists the mismatch and opens the partition's tapes with it marked ≠ on the destination.
 */

interface RunAnswer {
  run: { id: string; context: { mirror: string; topic: string } }
}

test('rehearse before you need it: a drill, bit rot found by a verification at its offset, shown on the tapes, healed', async ({ page }, testInfo) => {
  test.setTimeout(180_000)
  await signIn(page, 'operator', '/demo')
  const scenarios = page.getByRole('list', { name: 'Scenarios' })
  await scenarios.getByRole('button', { name: /Rehearse before you need it/ }).click()
  const started = page.waitForResponse((response) => response.url().endsWith('/api/v1/demo/scenarios/rehearse-before-you-need-it/run') && response.request().method() === 'POST')
  await page.getByRole('button', { name: /^Run( again)?: Rehearse before you need it$/ }).click()
  const { run } = (await (await started).json()) as RunAnswer
  const { mirror, topic } = run.context
  const narration = page.getByRole('region', { name: `Run ${run.id}` })
  await expect(narration.getByRole('img', { name: 'Step 5: succeeded' })).toBeVisible({ timeout: 120_000 })
  await expect(narration.getByText('5 of 5 steps')).toBeVisible()
  const steps = narration.getByRole('list', { name: 'Narration' }).getByRole('listitem').filter({ has: page.getByRole('heading', { level: 4 }) })
  await expect(steps.nth(1)).toContainText('7 of 7 checks passed')
  await expect(steps.nth(3)).toContainText('then differs')
  await lookAt(page, testInfo, 'demo-rehearsal')

  // The drill's page, from its step.
  await steps.nth(1).getByRole('link', { name: 'Drill', exact: true }).click()
  await expect(page.getByTestId('drill-status')).toContainText('Succeeded')
  await expect(page.locator('[data-check="markers-as-planned"]')).toHaveAttribute('data-ok', 'true')
  await expect(page.locator(`[data-partition="${topic}-1"]`)).toContainText('ABORT at')
  await lookAt(page, testInfo, 'demo-rehearsal-drill')

  // The verification that found the rot: the mismatch by offset, then on the tapes.
  await page.goBack()
  await steps.nth(3).getByRole('link', { name: 'Verification', exact: true }).click()
  await expect(page.getByTestId('verification-status')).toContainText('Mismatches')
  const mismatches = page.getByRole('region', { name: `Mismatches of ${topic}-0` })
  await expect(mismatches.locator('[data-mismatch]').first()).toContainText('crc')
  const offset = Number(await mismatches.locator('[data-mismatch]').last().getAttribute('data-mismatch'))
  await expect(mismatches.locator(`[data-mismatch="${offset}"]`).last()).toContainText('value: source')
  await lookAt(page, testInfo, 'demo-rehearsal-verification')
  await mismatches.getByRole('link', { name: `offset ${offset}` }).last().click()
  await expect(page).toHaveURL(new RegExp(`/mirrors/${mirror}/partitions/${topic}/0\\?offset=${offset}&verification=v-`))
  const note = page.getByRole('note').filter({ hasText: 'Verification' })
  await expect(note).toContainText('then differs')
  const cell = page.locator(`[data-lane="destination"][data-offset="${offset}"]`)
  await expect(cell).toHaveAttribute('data-mismatch', 'true')
  await expect(cell).toHaveAttribute('title', /differs from the source: .*record at offset \d+ differs: value/)
  await lookAt(page, testInfo, 'demo-rehearsal-tapes')
})
