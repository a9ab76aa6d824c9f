import { expect, test } from '@playwright/test'
import { signIn } from './support/session'

/**
 * The server of playwright.config.ts runs without the demo: /demo is a real not-found page and sign-in has no one-click button.
 * Not CSP-watched: the layout's async chunks (with zod) are placed before the inline jitless script (which opens <body>), so with a warm
 * cache zod's eval probe can run first and be reported; a foundation race the lead is told about, not this page's doing.
 */

test('outside demo mode /demo is a not-found page, the header has no Demo item and sign-in asks for a token', async ({ page }) => {
  await page.goto('/login')
  await expect(page.getByLabel('Access token')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Sign in as operator (demo)' })).toHaveCount(0)
  await signIn(page, 'operator')
  const response = await page.goto('/demo')
  expect(response?.status()).toBe(404)
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible()
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toHaveCount(0)
})
