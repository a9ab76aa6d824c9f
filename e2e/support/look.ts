import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, type TestInfo } from '@playwright/test'
import path from 'node:path'

/**
 * How every journey looks at a page: axe in light and in dark (no serious or critical violation), and a full-
 * page screenshot of each, saved as test-results/screens/<name>-<project>-<theme>.png so a person can open
 * them all side by side. Call it once the page shows what the journey is about.
 */
export async function lookAt(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const previous = await page.evaluate(() => localStorage.getItem('mirrorboard-theme'))
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((choice) => {
      document.documentElement.classList.toggle('dark', choice === 'dark')
      document.documentElement.style.colorScheme = choice
    }, theme)
    // Let transitions and canvas redraws that read the theme settle.
    await page.waitForTimeout(150)
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    expect(
      serious.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')}`),
      `axe on ${name} in ${theme}`,
    ).toEqual([])
    await page.screenshot({ path: path.join('test-results', 'screens', `${name}-${testInfo.project.name}-${theme}.png`), fullPage: true })
  }
  await page.evaluate((choice) => {
    const dark = choice === 'dark' || (choice !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches)
    document.documentElement.classList.toggle('dark', dark)
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
  }, previous)
}
