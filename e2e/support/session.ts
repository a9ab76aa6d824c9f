import { expect, type Page } from '@playwright/test'

export const operatorToken = process.env.E2E_OPERATOR_TOKEN ?? 'e2e-operator-token'
export const viewerToken = process.env.E2E_VIEWER_TOKEN ?? 'e2e-viewer-token'

/**
 * Signs in through the sign-in page, as a person would, and waits for the dashboard. `timeout` is for pages
 * whose first render is heavy (a wizard following a 2,000-partition failover while it runs).
 */
export async function signIn(page: Page, role: 'operator' | 'viewer', next = '/', options: { timeout?: number } = {}): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Access token').fill(role === 'operator' ? operatorToken : viewerToken)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible({ timeout: options.timeout })
  await expect(page.getByText(role, { exact: true }).first()).toBeVisible()
}
