import { expect, test } from '@playwright/test'

test('the home page names the app and shows the server as healthy', async ({ page }, testInfo) => {
  const health = await page.request.get('/api/v1/health')
  expect(health.ok()).toBe(true)
  const { version } = (await health.json()) as { version: string }

  await page.goto('/')
  await expect(page.getByRole('heading', { level: 1, name: 'Mirrorboard' })).toBeVisible()
  const status = page.getByRole('status', { name: 'Server health' })
  await expect(status).toHaveAttribute('data-health', 'ok')
  await expect(status).toContainText(`v${version}`)
  await expect(page.getByText(process.env.E2E_DATA_DIR ?? 'no data dir')).toBeVisible()

  await page.screenshot({ path: testInfo.outputPath('home.png'), fullPage: true })
})

test('the health badge turns red when the server stops answering', async ({ page }) => {
  await page.route('**/api/v1/health', (route) => route.fulfill({ status: 503, body: 'down' }))
  await page.goto('/')
  await expect(page.getByRole('status', { name: 'Server health' })).toHaveAttribute('data-health', 'down', { timeout: 15_000 })
})
