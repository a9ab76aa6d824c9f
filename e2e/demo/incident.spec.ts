import type { Locator, Page } from '@playwright/test'
import { expect, test } from '../support/csp'
import { asOperator, okJson } from '../support/http'
import { lookAt } from '../support/look'
import { signIn } from '../support/session'

/**
 * Issue #33: the dashboard tells the truth in an incident. The demo's link from us-east is cut, so every
 * partition of us-east-to-eu-west goes FAILED with its source unreachable: the mirror page and the overview
 * must never read 0, "caught up" or "shrinking" for them, their lower bounds must grow, and a banner must name
 * the cause. Healed, the figures converge back to current ones and the banner goes.
 */

const MIRROR = 'us-east-to-eu-west'

interface MirrorAnswer {
  partitionsByState: Record<string, number>
  lagKnown?: boolean
}

/** "≥ 1 min 5 s" → 65_000; "≥ 31 s" → 31_000; "≥ 4.1 s" → 4_100. */
function durationMs(text: string): number {
  let total = 0
  for (const [, value, unit] of text.matchAll(/([\d.]+)\s*(ms|s|min|h)\b/g)) total += Number(value) * { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'min' | 'h']
  return total
}

/** Nothing in `scope` reads calm. The overview passes the cut mirror's own edge and row: beside it, a mirror that
 * really is caught up says "lag 0", truly. */
async function noFalseCalm(scope: Locator, where: string): Promise<void> {
  const text = (await scope.allInnerTexts()).join('\n')
  expect(text, `${where} says caught up`).not.toMatch(/caught up/i)
  expect(text, `${where} says shrinking`).not.toMatch(/shrinking/i)
  expect(text, `${where} says lag 0`).not.toMatch(/lag 0\b/)
}

function figure(page: Page, label: string): Locator {
  return page.getByTestId('mirror-figures').locator('div').filter({ has: page.getByText(label, { exact: true }) })
}

test('a cut link: the mirror page and the overview show lower bounds that grow, the cause in a banner, never 0 or caught up; healed, they converge', async ({ page, request }, testInfo) => {
  test.setTimeout(240_000)
  await expect.poll(async () => (await okJson<{ status: string }>(await request.get('/api/v1/demo', { headers: asOperator }))).status, { timeout: 60_000 }).toBe('ready')
  // The page is open when the link is cut: the failures reach it by the event stream, as they reach an operator
  // watching it (a page opened after the cut reads them all from one answer and hid the rows that lost their reason).
  await signIn(page, 'operator', `/mirrors/${MIRROR}`)
  await expect(page.getByRole('group', { name: 'Mirror actions' }).getByRole('button', { name: 'Pause' })).toHaveAttribute('data-primary', 'true')
  const { fault } = await okJson<{ fault: { id: string } }>(await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'cut-link', cluster: 'us-east' } }), 202)
  try {
    await expect
      .poll(async () => {
        const mirror = await okJson<MirrorAnswer>(await request.get(`/api/v1/mirrors/${MIRROR}`, { headers: asOperator }))
        return Object.keys(mirror.partitionsByState).join(',')
      }, { timeout: 90_000 })
      .toBe('FAILED')

    await test.step('the mirror page: banner with the cause, lower bounds, trend unknown, table marked ≥', async () => {
      const banner = page.getByTestId('incident-banner')
      await expect(banner).toBeVisible({ timeout: 30_000 })
      await expect(banner).toContainText('21 of 21 partitions FAILED')
      // The largest cause first (a partition failing in another step at the moment of the cut may be listed apart).
      await expect(banner.getByTestId('incident-cause').first()).toHaveText('source unreachable (us-east)')
      await expect(banner).toContainText(/next retry/)
      await expect(banner.getByRole('button', { name: 'Recover 21 failed now' })).toHaveAttribute('data-primary', 'true')
      await expect(banner.getByRole('link', { name: 'Fail over…' })).toBeVisible()
      await expect(page.getByTestId('mirror-figures')).toHaveAttribute('data-lower-bound', 'true')
      await expect(figure(page, 'Offset lag').locator('dd').first()).toHaveText(/^≥ \S+ records?$/)
      await expect(page.getByTestId('mirror-at-risk').locator('dd').first()).toHaveText(/^≥ \S+ records?$/)
      await expect(page.locator('[data-trend]')).toHaveAttribute('data-trend', 'unknown')
      await expect(page.locator('[data-trend]')).toHaveText(/lag unknown: source unreachable/)
      await expect(page.getByTestId('lag-summary')).toContainText('Lag unknown: source unreachable')
      await expect(page.getByTestId('lag-unknown-legend')).toBeVisible()
      // Every FAILED row's lag is a lower bound, none a bare figure.
      const lagCells = page.locator('[role="row"][data-partition] [data-lower-bound]')
      await expect(lagCells.first()).toHaveText(/^(lag )?≥ /)
      // The reason and the next retry on every FAILED row, those that failed after the page loaded too (they reach
      // the table by the event stream; 2 of 21 read "failed · attempt 0" when the link was cut mid-step).
      const reasons = page.locator('[role="row"][data-partition] [data-testid="failure-reason"]')
      await expect(reasons.first()).toContainText('source unreachable')
      await expect(page.locator('[role="row"][data-partition] [data-testid="failure-retry"]').first()).toHaveText(/^(retry in \d|retry due)/)
      for (const text of await reasons.allInnerTexts()) expect(text).not.toMatch(/^failed ·|attempt 0/)
      // What flows: nothing, said as 0 now, not the average of the 10 s before the cut.
      const throughput = page.getByTestId('mirror-throughput')
      await expect(throughput).toHaveAttribute('data-limit', 'noFetches')
      await expect(throughput).toContainText('0 records/s')
      await expect(throughput).toContainText('0 B/s')
      await expect(throughput).toContainText('Now: the source does not answer now, so nothing flows')
      // One primary action on the page, the band's Recover; the header has no second Recover. Resume cannot apply and says why.
      const actions = page.getByRole('group', { name: 'Mirror actions' })
      await expect(page.locator('main [data-primary="true"]')).toHaveCount(1)
      await expect(actions.getByRole('button', { name: /^Recover/ })).toHaveCount(0)
      await expect(actions.getByRole('button', { name: 'Resume' })).toBeDisabled()
      await noFalseCalm(page.locator('main'), 'the mirror page')

      // The time lag's lower bound grows with the clock, with no new answer from the source.
      const timeLag = figure(page, 'Max time lag').locator('dd').first()
      const before = durationMs(await timeLag.innerText())
      await expect.poll(async () => durationMs(await timeLag.innerText()), { timeout: 10_000 }).toBeGreaterThanOrEqual(before + 2_000)
      await lookAt(page, testInfo, 'incident-mirror-page')
    })

    await test.step('the overview: a banner, one grouped attention row, an edge that never reads lag 0', async () => {
      await page.goto('/')
      const banner = page.getByTestId('incident-banner')
      await expect(banner).toContainText(`${MIRROR}: 21 of 21 partitions FAILED`)
      await expect(banner.getByTestId('incident-cause').first()).toHaveText('source unreachable (us-east)')
      const groups = page.getByRole('list', { name: 'What needs attention, by mirror and cause, worst first' }).locator(':scope > li')
      // One row for the mirror's unreachable source, however many partitions it holds (not one card each).
      const unreachable = page.locator('li[data-kind="failed"][data-cause="sourceUnreachable"]')
      await expect(unreachable).toHaveCount(1)
      await expect(unreachable).toContainText(/\d+ FAILED/)
      await expect(unreachable).toContainText('source unreachable since')
      await unreachable.locator('summary').click()
      await expect(unreachable.getByRole('link', { name: /^(clickstream|orders|payments)-\d+$/ }).first()).toBeVisible()
      expect(await groups.count()).toBeLessThanOrEqual(3)
      const list = page.getByRole('list', { name: 'Mirrors', exact: true })
      await expect(list).toContainText(/lag ≥ \S+ · ≥ /)
      const cutMirror = page
        .getByRole('link', { name: new RegExp(`^Mirror ${MIRROR} ,`) })
        .or(list.getByRole('listitem').filter({ has: page.getByRole('link', { name: MIRROR, exact: true }) }))
      await expect(cutMirror).toHaveCount(2)
      await noFalseCalm(cutMirror, 'the overview')
      const overview = await page.locator('main').innerText()
      expect(overview, 'the overview says caught up').not.toMatch(/caught up/i)
      expect(overview, 'the overview says shrinking').not.toMatch(/shrinking/i)
      await lookAt(page, testInfo, 'incident-overview')
    })

    await test.step('the mirrors index: found by a topic, its lag a lower bound, Mirrors lit in the nav', async () => {
      await page.goto('/mirrors')
      await expect(page).toHaveTitle('Mirrors: state, lag, throughput and last failover · Mirrorboard')
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mirrors' })).toHaveAttribute('aria-current', 'page')
      const line = page.locator(`tr[data-mirror="${MIRROR}"]`)
      await expect(line.locator('[data-state="FAILED"]')).toBeVisible()
      await expect(line.locator('[data-lower-bound]')).toHaveText(/^lag ≥ /)
      await page.getByRole('searchbox', { name: 'Search' }).fill('payments')
      await expect(line).toContainText('topics: payments')
      await lookAt(page, testInfo, 'incident-mirrors-index')
      await page.getByRole('searchbox', { name: 'Search' }).fill('no-such-topic')
      await expect(page.getByRole('status').filter({ hasText: 'No mirror, cluster or topic matches' })).toContainText('“no-such-topic”')
      await page.goto(`/mirrors/${MIRROR}`)
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mirrors' })).toHaveAttribute('aria-current', 'page')
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' })).not.toHaveAttribute('aria-current', 'page')
    })

    await test.step('the partition page: the retries while the link is cut read as one row with a count', async () => {
      await page.goto(`/mirrors/${MIRROR}/partitions/orders/0`)
      const timeline = page.getByRole('list', { name: 'Transitions, newest first' })
      // Each retry is two transitions (FAILED → MIRRORING → FAILED); row by row they buried everything before the cut.
      const storm = timeline.getByTestId('retry-storm').first()
      await expect(storm).toHaveText(/^FAILED (⇄|→) .+ × \d+$/, { timeout: 90_000 })
      expect(Number((await storm.innerText()).split('× ')[1])).toBeGreaterThanOrEqual(3)
      await expect(timeline.locator(':scope > li[data-storm]')).toHaveCount(1)
      await lookAt(page, testInfo, 'incident-partition-page')

      // The mirror's own timeline: when it broke (every partition in one row), then its retries as one row.
      await page.goto(`/mirrors/${MIRROR}`)
      const timelineOfMirror = page.getByTestId('mirror-timeline')
      await expect(timelineOfMirror.locator('li[data-kind="change"][data-to="FAILED"]').first()).toContainText(/\d+ partitions/, { timeout: 30_000 })
      await expect(timelineOfMirror.getByTestId('mirror-retry-storm').first()).toHaveText(/^FAILED ⇄ .+ × \d+$/, { timeout: 60_000 })
      await lookAt(page, testInfo, 'incident-mirror-timeline')
    })

    await test.step('one answer to "what would I lose": the partition page, the wizard and the mirror header agree', async () => {
      // The source is held still (every workload paused), so the three readings see one source: the partition
      // page reads us-east itself, the wizard's plan reads it directly since the mirror's link does not answer,
      // and the mirror's lower bounds come from the engine's own readings of the silent source.
      const { workloads } = await okJson<{ workloads: Array<{ name: string; paused: boolean }> }>(await request.get('/api/v1/demo/workloads', { headers: asOperator }))
      const running = workloads.filter((workload) => !workload.paused)
      for (const workload of running) await okJson(await request.post(`/api/v1/demo/workloads/${workload.name}/pause`, { headers: asOperator }))
      try {
        const count = (text: string) => Number(text.replace(/[^\d]/g, ''))
        await page.goto(`/mirrors/${MIRROR}/partitions/orders/0`)
        const onPartitionPage = count(await page.getByTestId('partition-at-risk').innerText())
        expect(onPartitionPage, 'records written to orders/0 since the cut').toBeGreaterThan(0)
        await page.goto(`/mirrors/${MIRROR}/failover`)
        await page.getByRole('button', { name: 'Next: Topics' }).click()
        await page.getByRole('button', { name: 'Next: Gates' }).click()
        await expect(page.getByRole('heading', { name: '3. Preflight gates' })).toBeVisible()
        // The mirror's link is down, yet the records at risk are exact: the source was read directly.
        await expect(page.locator('[data-gate="source-reachable"]')).toContainText('Mirrorboard reads it directly')
        const forces = page.getByRole('checkbox', { name: /Force past this gate/ })
        for (const force of await forces.all()) await force.check()
        await page.getByRole('button', { name: 'Next: Impact' }).click()
        await expect(page.getByRole('heading', { name: '4. Impact preview' })).toBeVisible()
        const wizardRow = page.locator('tr[data-partition="orders-0"] td[data-label="Records at risk"]')
        await expect(wizardRow).toContainText(/\d/, { timeout: 30_000 })
        expect(count((await wizardRow.locator('.font-semibold').first().innerText()))).toBe(onPartitionPage)
        const inWizard = await page.locator('[data-figure="Records at risk"] dd').first().innerText()
        // Exact: read from the source now, though the mirror itself cannot reach it.
        expect(inWizard).not.toMatch(/≥|unknown/)
        await lookAt(page, testInfo, 'incident-failover-wizard')
        await page.goto(`/mirrors/${MIRROR}`)
        // A lower bound on the mirror page (the mirror does not fetch), as of a reading seconds old, and the same figure.
        await expect.poll(async () => count(await page.getByTestId('mirror-at-risk').locator('dd').first().innerText()), { timeout: 30_000 }).toBe(count(inWizard))
        await expect(page.getByTestId('mirror-at-risk').locator('dd').first()).toHaveText(/^≥ /)
      } finally {
        for (const workload of running) await okJson(await request.post(`/api/v1/demo/workloads/${workload.name}/resume`, { headers: asOperator }))
      }
    })
  } finally {
    await okJson(await request.post('/api/v1/demo/faults', { headers: asOperator, data: { kind: 'heal-link', cluster: 'us-east' } }), 202)
  }

  await test.step('healed: the banner goes, the figures are current again', async () => {
    // The first partition to retry finds the source answering, and the others' retries come forward (their backoffs
    // reached minutes while the link was cut).
    await expect
      .poll(async () => JSON.stringify((await okJson<MirrorAnswer>(await request.get(`/api/v1/mirrors/${MIRROR}`, { headers: asOperator }))).partitionsByState), { timeout: 150_000 })
      .toBe(JSON.stringify({ MIRRORING: 21 }))
    await page.goto(`/mirrors/${MIRROR}`)
    await expect(page.getByTestId('mirror-as-of')).toContainText('Figures as of')
    await expect(page.getByTestId('incident-banner')).toHaveCount(0)
    await expect(page.getByTestId('mirror-figures')).not.toHaveAttribute('data-lower-bound', 'true', { timeout: 60_000 })
    await expect(page.locator('[data-trend]')).not.toHaveAttribute('data-trend', 'unknown', { timeout: 60_000 })
    await expect(page.getByRole('group', { name: 'Mirror actions' }).getByRole('button', { name: 'Pause' })).toHaveAttribute('data-primary', 'true')
    await expect(page.getByTestId('mirror-throughput')).not.toHaveAttribute('data-limit', 'noFetches', { timeout: 30_000 })
    await page.goto('/')
    await expect(page.getByRole('list', { name: 'Mirrors', exact: true })).toContainText('lag')
    await expect(page.getByTestId('incident-banner')).toHaveCount(0)
    await expect(page.getByRole('list', { name: 'Mirrors', exact: true })).not.toContainText('≥')
  })
  expect(fault.id).toMatch(/^f-/)
})
