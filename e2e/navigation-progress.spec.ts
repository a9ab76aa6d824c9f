import { expect, test } from '@playwright/test'
import { signIn, waitForLiveUpdates } from './support/session'

/**
 * Links do not prefetch, so a click waits for the server's answer of the next page. On a slow server (held here:
 * the router's request for the page is answered 2 s late) the page says at once that the click was taken, and the
 * bar leaves once the page is there. A link with a modifier (a new tab) is the browser's, and shows nothing.
 */
test('a click on a link shows that the page is loading until it is there, however slow the server @wide-only', async ({ page }) => {
  await signIn(page, 'viewer', '/')
  await waitForLiveUpdates(page)
  await page.route(
    (url) => url.pathname === '/audit',
    async (route) => {
      // The app router asks for the page's payload with an RSC header; a full page load is left alone.
      if (route.request().headers()['rsc'] === '1') await new Promise((resolve) => setTimeout(resolve, 2_000))
      await route.continue()
    },
  )
  const bar = page.getByRole('progressbar', { name: 'Loading page' })
  await expect(bar).toHaveCount(0)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit', exact: true }).click()
  await expect(bar).toBeVisible()
  await expect(page).toHaveURL(/\/$/)
  await expect(page).toHaveURL(/\/audit$/, { timeout: 15_000 })
  await expect(bar).toHaveCount(0)
  await expect(page.getByRole('heading', { level: 1 })).toContainText(/audit/i)
})
