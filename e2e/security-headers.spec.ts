import { expect, test } from '@playwright/test'
import { watchCsp } from './support/csp'
import { signIn } from './support/session'

/**
 * The dashboard works under its Content-Security-Policy (server/http/security-headers.ts): no page reports a
 * violation, the inline theme script runs because it carries the request's nonce, and a script without it
 * is refused — so the watch below is known to see violations when there are some.
 */

test('the sign-in page reports no CSP violation and its theme script ran under the nonce', async ({ page }) => {
  const csp = await watchCsp(page)
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto('/login')
  await expect(page.getByRole('heading', { name: 'Sign in to Mirrorboard' })).toBeVisible()
  // Only the inline theme script sets the class before React hydrates; it ran, so the nonce was accepted.
  await expect(page.locator('html')).toHaveClass(/dark/)
  const inlineWithoutNonce = await page.evaluate(() => [...document.scripts].filter((script) => !script.src && !script.nonce).length)
  expect(inlineWithoutNonce).toBe(0)
  await csp.expectNone()
})

test('the overview, live event stream included, reports no CSP violation', async ({ page }) => {
  const csp = await watchCsp(page)
  await signIn(page, 'operator')
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveAttribute('data-stream', 'open')
  await page.reload()
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveAttribute('data-stream', 'open')
  await csp.expectNone()
})

test('a not-found page reports no CSP violation', async ({ page }) => {
  const csp = await watchCsp(page)
  await page.goto('/no-such-page')
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible()
  await csp.expectNone()
})

test('an inline script without the nonce is refused and reported', async ({ page }) => {
  const csp = await watchCsp(page)
  await page.goto('/login')
  await expect(page.getByRole('heading', { name: 'Sign in to Mirrorboard' })).toBeVisible()
  const ran = await page.evaluate(() => {
    const script = document.createElement('script')
    script.textContent = 'document.documentElement.dataset.injected = "yes"'
    document.head.append(script)
    return document.documentElement.dataset.injected === 'yes'
  })
  expect(ran).toBe(false)
  await expect.poll(() => csp.violations.some((line) => line.includes('script-src'))).toBe(true)
})
