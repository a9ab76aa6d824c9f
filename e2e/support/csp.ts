import { test as base, expect, type Page } from '@playwright/test'

/**
 * Content-Security-Policy violations a page reports, for journeys to assert there are none.
 *
 *   const csp = await watchCsp(page)      // before the first goto
 *   ...
 *   await csp.expectNone()
 *
 * or import `test` from here instead of '@playwright/test': every test then fails when any page it opened
 * reported a violation. Both the DOM's `securitypolicyviolation` events and Chromium's console errors are
 * collected, across navigations (the binding outlives each document).
 */
export interface CspWatch {
  /** One line per violation: directive, what was blocked, where. */
  readonly violations: string[]
  /** Waits for the page to finish loading, then asserts no violation was reported. */
  expectNone(): Promise<void>
}

declare global {
  interface Window {
    __mirrorboardReportCspViolation?: (line: string) => void
  }
}

const watched = new WeakMap<Page, CspWatch>()

export async function watchCsp(page: Page): Promise<CspWatch> {
  const existing = watched.get(page)
  if (existing) return existing
  const violations: string[] = []
  await page.exposeBinding('__mirrorboardReportCspViolation', (_source, line: string) => {
    violations.push(line)
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const where = event.sourceFile ? ` at ${event.sourceFile}:${event.lineNumber}` : ''
      window.__mirrorboardReportCspViolation?.(`${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'}${where} on ${location.pathname}`)
    })
  })
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(`console: ${message.text()}`)
  })
  const watch: CspWatch = {
    violations,
    async expectNone() {
      await page.waitForLoadState('load')
      expect(violations, `CSP violations on ${page.url()}`).toEqual([])
    },
  }
  watched.set(page, watch)
  return watch
}

/** `test` whose every page is watched: the test fails if any page it opened reported a CSP violation. */
export const test = base.extend<{ cspWatch: CspWatch }>({
  cspWatch: [
    async ({ page }, use) => {
      const watch = await watchCsp(page)
      await use(watch)
      expect(watch.violations, 'CSP violations reported during the test').toEqual([])
    },
    { auto: true },
  ],
})

export { expect }
