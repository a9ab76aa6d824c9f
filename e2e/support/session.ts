import { expect, type Page } from '@playwright/test'

export const operatorToken = process.env.E2E_OPERATOR_TOKEN ?? 'e2e-operator-token'
export const viewerToken = process.env.E2E_VIEWER_TOKEN ?? 'e2e-viewer-token'

/**
 * Signs in the way the sign-in page does (POST /api/v1/session in the page's context, so the browser holds the
 * cookie), then opens `next` and waits for the dashboard. The sign-in page itself is a journey of its own
 * (signInThroughForm, home.spec.ts); rendering it before every other journey cost about a second each.
 * `timeout` is for pages whose first render is heavy (a wizard following a 2,000-partition failover while it runs).
 */
export async function signIn(page: Page, role: 'operator' | 'viewer', next = '/', options: { timeout?: number } = {}): Promise<void> {
  const answer = await page.request.post('/api/v1/session', { data: { token: role === 'operator' ? operatorToken : viewerToken } })
  expect(answer.status(), await answer.text()).toBe(200)
  await page.goto(next, { timeout: options.timeout })
  await signedInAs(page, role, options)
}

/** Signs in through the sign-in page, as a person would, and waits for the dashboard. */
export async function signInThroughForm(page: Page, role: 'operator' | 'viewer', next = '/', options: { timeout?: number } = {}): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Access token').fill(role === 'operator' ? operatorToken : viewerToken)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await signedInAs(page, role, options)
}

async function signedInAs(page: Page, role: 'operator' | 'viewer', options: { timeout?: number }): Promise<void> {
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible({ timeout: options.timeout })
  await expect(page.getByText(role, { exact: true }).first()).toBeVisible()
}

/**
 * Waits until the page is hydrated and its event stream open: the header's live indicator says "Live" only
 * then (the server renders "Connecting"). Typing into a controlled input before hydration is lost when React
 * takes the field over, so a journey that fills a form right after a reload waits for this first.
 */
export async function waitForLiveUpdates(page: Page): Promise<void> {
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live')
}
