import { expect, test } from '@playwright/test'
import { lookAt } from './support/look'
import { signIn, signInThroughForm } from './support/session'

test('a page that needs a session sends you to sign in, and back', async ({ page }) => {
  await page.goto('/')
  await expect(page).toHaveURL(/\/login\?next=%2F$/)
  await expect(page.getByRole('heading', { name: 'Sign in to Mirrorboard' })).toBeVisible()
})

test('a wrong token is refused with the API code and message, and nothing is signed in', async ({ page }) => {
  await page.goto('/login')
  await page.getByLabel('Access token').fill('not-a-token')
  await page.getByRole('button', { name: 'Sign in' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'Sign-in refused' })
  await expect(alert).toContainText('UNAUTHENTICATED')
  await expect(alert).toContainText('the token is not valid')
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0)
})

for (const role of ['viewer', 'operator'] as const) {
  test(`signing in as ${role} shows the role in the header, and signing out ends the session`, async ({ page }) => {
    await signInThroughForm(page, role)
    await expect(page.getByRole('status', { name: 'Live updates' })).toHaveAttribute('data-stream', 'open')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(/\/login/)
    await page.goto('/')
    await expect(page).toHaveURL(/\/login/)
  })
}

test('the theme switch is remembered across reloads', async ({ page }) => {
  await signIn(page, 'viewer')
  await page.getByRole('radio', { name: 'Dark theme' }).click()
  await expect(page.locator('html')).toHaveClass(/dark/)
  await page.reload()
  await expect(page.locator('html')).toHaveClass(/dark/)
  await page.getByRole('radio', { name: 'Light theme' }).click()
  await expect(page.locator('html')).not.toHaveClass(/dark/)
})

test('an unknown page is a real not-found page with a way back', async ({ page }) => {
  await page.goto('/no-such-page')
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Back to the overview' })).toBeVisible()
})

test('the sign-in page and the not-found page pass axe in light and dark', async ({ page }, testInfo) => {
  await page.goto('/login')
  await expect(page.getByRole('heading', { name: 'Sign in to Mirrorboard' })).toBeVisible()
  await lookAt(page, testInfo, 'login')
  await page.goto('/no-such-page')
  await expect(page.getByRole('heading', { name: 'This page does not exist' })).toBeVisible()
  await lookAt(page, testInfo, 'not-found')
})
