import { expect, type Page, type TestInfo } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * How every journey looks at a page: axe in light (every WCAG rule) and its contrast rules in dark (no serious or critical violation), and a full-
 * page screenshot of each, saved as test-results/screens/<name>-<project>-<theme>.png so a person can open
 * them all side by side. Call it once the page shows what the journey is about; `alsoNarrow` in a journey the phone
 * project skips.
 */
export async function lookAt(page: Page, testInfo: TestInfo, name: string, options: { alsoNarrow?: boolean } = {}): Promise<void> {
  await lookAtThemes(page, name, testInfo.project.name)
  if (options.alsoNarrow && testInfo.project.name !== 'phone') await lookAtNarrow(page, name)
}

/**
 * For journeys the phone project does not run (heavy setups, @wide-only): the same page at the phone's 390x844
 * as well, so every page has its screenshots at both sizes; without sideways page scroll, as the phone journeys check.
 */
async function lookAtNarrow(page: Page, name: string): Promise<void> {
  const wide = page.viewportSize()
  await page.setViewportSize({ width: 390, height: 844 })
  try {
    await page.waitForTimeout(150)
    expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth), `${name} scrolls sideways at 390 px`).toBe(false)
    await lookAtThemes(page, name, 'phone')
  } finally {
    if (wide !== null) await page.setViewportSize(wide)
  }
}

async function lookAtThemes(page: Page, name: string, size: string): Promise<void> {
  const previous = await page.evaluate(() => localStorage.getItem('mirrorboard-theme'))
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((choice) => {
      document.documentElement.classList.toggle('dark', choice === 'dark')
      document.documentElement.style.colorScheme = choice
    }, theme)
    // Let transitions and canvas redraws that read the theme settle.
    await page.waitForTimeout(150)
    // The theme changes colours only: dark is checked for contrast, light for everything.
    const serious = (await axeViolations(page, theme === 'light' ? undefined : DARK_RULES)).filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    expect(
      serious.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')}`),
      `axe on ${name} in ${theme}`,
    ).toEqual([])
    await page.screenshot({ path: path.join('test-results', 'screens', `${name}-${size}-${theme}.png`), fullPage: true })
  }
  await page.evaluate((choice) => {
    const dark = choice === 'dark' || (choice !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches)
    document.documentElement.classList.toggle('dark', dark)
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
  }, previous)
}

interface Violation {
  id: string
  impact?: string | null
  help: string
  nodes: Array<{ target: string[] }>
}

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
/** The WCAG rules whose verdict can differ between two themes of the same page. */
const DARK_RULES = ['color-contrast', 'link-in-text-block']
let axeSource: string | undefined

/**
 * axe-core run in the page itself, injected once per document. @axe-core/playwright's AxeBuilder opened a
 * new page for every analysis to merge its results and took 3–4 times as long (6.1–6.7 s against 1.6–2.0 s
 * on an overview of 43 mirrors): two of those per lookAt were a third of the browser journeys' time. The pages
 * have no iframes, so the one frame's run is the whole result.
 */
async function axeViolations(page: Page, rules?: readonly string[]): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    axeSource ??= readFileSync(path.join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')
    await page.evaluate(axeSource)
  }
  return page.evaluate(async ({ tags, rules }) => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe
    const runOnly = rules === undefined ? { type: 'tag', values: tags } : { type: 'rule', values: rules }
    const results = await axe.run(document, { runOnly, resultTypes: ['violations'] })
    return results.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target: target.map(String) })) }))
  }, { tags: WCAG_TAGS, rules })
}
