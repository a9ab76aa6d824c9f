import { expect, test, type Page } from '@playwright/test'
import { asOperator, createCluster, createTopic, expectError, okJson, unique } from '../support/http'
import { lookAt } from '../support/look'

/**
 * A verification of a mirror outside a scoped person's grants (erin: operator on `.*-to-eu-west` only,
 * playwright.oidc.config.ts), opened by its link: one page-level refusal naming why and the API's code — not the
 * verification's page around a 403, and none of its figures — while the in-scope mirror's verification opens.
 * The operation and drill pages refuse the same way (app/operations/[id], app/drills/[id]).
 */

const issuer = process.env.E2E_OIDC_ISSUER ?? ''
const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }

async function signInThroughProvider(page: Page, username: string, next: string): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`)
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
  await expect(page).toHaveURL(new RegExp(`^${issuer.replace(/[.]/g, '\\.')}/interaction/`))
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(`${username}-pass`)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

test('a verification outside the scope is one refusal with the API code; one inside opens', async ({ page }, testInfo) => {
  const source = unique('src')
  await createCluster(page.request, source)
  await createTopic(page.request, source, 'orders')
  const inScope = `${unique('orders')}-to-eu-west`
  const outOfScope = `${unique('orders')}-to-us-east`
  const verifications: Record<string, string> = {}
  for (const name of [inScope, outOfScope]) {
    const destination = unique('dst')
    await createCluster(page.request, destination)
    await okJson(await page.request.post('/api/v1/mirrors', { headers: asOperator, data: { name, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
    await expect
      .poll(async () => (await okJson<{ partitions: Array<{ state: string }> }>(await page.request.get(`/api/v1/mirrors/${name}/partitions`, { headers: asOperator }))).partitions.map((p) => p.state), SETTLE)
      .toEqual(['MIRRORING'])
    verifications[name] = (await okJson<{ verification: string }>(await page.request.post(`/api/v1/mirrors/${name}/verify`, { headers: asOperator, data: {} }), 202)).verification
  }
  const refusedId = verifications[outOfScope] ?? ''

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
})
