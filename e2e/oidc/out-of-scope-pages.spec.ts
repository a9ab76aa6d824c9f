import { expect, test, type Page } from '@playwright/test'
import { asOperator, expectError, okJson } from '../support/http'
import { lookAt } from '../support/look'
import { SETTLE, scopedMirrors, signInThroughProvider } from './provider-support'

/**
 * A verification of a mirror outside a scoped person's grants (erin: operator on `.*-to-eu-west` only,
 * playwright.oidc.config.ts), opened by its link: one page-level refusal naming why and the API's code — not the
 * verification's page around a 403, and none of its figures — while the in-scope mirror's verification opens.
 * The operation and drill pages refuse the same way (app/operations/[id], app/drills/[id]). Then erin fails the
 * in-scope mirror over: its operation page names her as who confirmed it, and so does its split-brain notice.
 */

async function expectOneRefusal(page: Page, title: string, outOfScope: string): Promise<void> {
  await expect(page.getByRole('heading', { name: title })).toBeVisible()
  await expect(page.getByText(`Your viewer role does not extend to mirror ${outOfScope}.`)).toBeVisible()
  await expect(page.getByText('403 FORBIDDEN')).toBeVisible()
  // (Next.js's route announcer is an empty alert region on every page.)
  await expect(page.getByRole('alert').filter({ hasText: /\S/ })).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toBeVisible()
}

test('a verification, drill or operation outside the scope is one refusal with the API code; one inside opens and names who failed over', async ({ page }, testInfo) => {
  const { inScope, outOfScope } = await scopedMirrors(page, 'both')
  const verifications: Record<string, string> = {}
  for (const name of [inScope, outOfScope]) {
    verifications[name] = (await okJson<{ verification: string }>(await page.request.post(`/api/v1/mirrors/${name}/verify`, { headers: asOperator, data: {} }), 202)).verification
  }
  const refusedId = verifications[outOfScope] ?? ''
  // A drill and then a failover of the out-of-scope mirror (by the operator token), for their pages.
  const drill = (await okJson<{ drill: string }>(await page.request.post(`/api/v1/mirrors/${outOfScope}/drills`, { headers: asOperator, data: {} }), 202)).drill
  await expect.poll(async () => (await okJson<{ status: string }>(await page.request.get(`/api/v1/drills/${drill}`, { headers: asOperator }))).status, SETTLE).not.toBe('running')
  const operation = (await okJson<{ operation: string }>(await page.request.post(`/api/v1/mirrors/${outOfScope}/failover`, { headers: asOperator, data: { confirm: outOfScope } }), 202)).operation

  await signInThroughProvider(page, 'erin', `/verifications/${refusedId}`)
  await expect(page).toHaveURL(new RegExp(`/verifications/${refusedId}$`))
  await expect(page.getByRole('heading', { name: `Verification ${refusedId} is outside your scope` })).toBeVisible()
  await expect(page.getByText(`Your viewer role does not extend to mirror ${outOfScope}.`)).toBeVisible()
  await expect(page.getByText('403 FORBIDDEN')).toBeVisible()
  // One refusal, not the verification's page: no heading of it, no partitions, no second error.
  await expect(page.getByRole('heading', { name: `Verification of ${outOfScope}` })).toHaveCount(0)
  await expect(page.locator('#verification-partitions')).toHaveCount(0)
  // (Next.js's route announcer is an empty alert region on every page.)
  await expect(page.getByRole('alert').filter({ hasText: /\S/ })).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth), 'the page scrolls sideways').toBe(false)
  await lookAt(page, testInfo, 'oidc-out-of-scope-verification')
  // The API says the same, with the same code.
  await expectError(await page.request.get(`/api/v1/verifications/${refusedId}`), 403, 'FORBIDDEN')

  await page.goto(`/verifications/${verifications[inScope] ?? ''}`)
  await expect(page.getByRole('heading', { name: `Verification of ${inScope}` })).toBeVisible()
  await expect(page.getByText('outside your scope')).toHaveCount(0)

  await page.goto(`/drills/${drill}`)
  await expectOneRefusal(page, `Drill ${drill} is outside your scope`, outOfScope)
  await expectError(await page.request.get(`/api/v1/drills/${drill}`), 403, 'FORBIDDEN')
  await page.goto(`/operations/${operation}`)
  await expectOneRefusal(page, `Operation ${operation.slice(0, 8)} is outside your scope`, outOfScope)
  await expect(page.getByTestId('split-brain-quiet')).toHaveCount(0)
  await expectError(await page.request.get(`/api/v1/operations/${operation}`), 403, 'FORBIDDEN')

  // Erin fails the in-scope mirror over: the operation and its split-brain notice name her, not a session.
  const origin = new URL(page.url()).origin
  const hers = (await okJson<{ operation: string }>(await page.request.post(`/api/v1/mirrors/${inScope}/failover`, { headers: { Origin: origin }, data: { confirm: inScope } }), 202)).operation
  await expect.poll(async () => (await okJson<{ status: string }>(await page.request.get(`/api/v1/operations/${hers}`))).status, SETTLE).toBe('succeeded')
  await page.goto(`/operations/${hers}`)
  await expect(page.getByText('Erin Scoped <erin@example.com>').first()).toBeVisible()
  await expect(page.getByTestId('split-brain-failed-over-by')).toContainText('by Erin Scoped <erin@example.com> at', SETTLE)
  await lookAt(page, testInfo, 'oidc-operation-failed-over-by')
})
