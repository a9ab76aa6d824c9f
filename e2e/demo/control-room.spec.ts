import { expect, test } from '../support/csp'
import { asOperator, asViewer, expectError, okJson } from '../support/http'
import { lookAt } from '../support/look'
import { signIn } from '../support/session'
import type { Page } from '@playwright/test'

/**
 * The demo control room (/demo) against the server in demo mode: the one-click sign-in, the worked example
 * run from the page and followed to its end, a workload paused, resumed and re-rated, and a fault injected
 * and healed, with refusals shown by their code.
 */

/** The tables of kip-1279-excerpt.txt (source at the time of failure; destination after STOPPING, plus the reset record DESIGN.md §4 adds). */
const SOURCE_TABLE = [
  [0, 'DATA', 4001, 'A=1'],
  [1, 'DATA', 4001, 'B=2'],
  [2, 'DATA', 4002, 'X=9'],
  [3, 'COMMIT', 4001, null],
  [4, 'DATA', 4003, 'Y=5'],
  [5, 'DATA', null, 'Z=10'],
] as const
const DESTINATION_TABLE = [
  [0, 'DATA', 4001, 'A=1'],
  [1, 'DATA', 4001, 'B=2'],
  [2, 'DATA', 4002, 'X=9'],
  [3, 'ABORT', 4001, null],
  [4, 'ABORT', 4002, null],
  [5, 'MIRROR_PID_RESET', null, null],
] as const

/** How the narration writes each record of a log (the page names each cell by it): "0 DATA 4001 A=1", "5 DATA — Z=10". */
function narrated(table: readonly (readonly [number, string, number | null, string | null])[]): string[] {
  return table.map(([offset, type, producerId, content]) => [offset, type, producerId ?? '—', content ?? ''].join(' ').trim())
}

interface RunAnswer {
  run: { id: string; context: { sourceCluster: string; destinationCluster: string; mirror: string; topic: string } }
}
interface RecordsAnswer {
  records: Array<{ offset: number; type: string; producerId: number | null; key: string | null; value: string | null }>
}

async function oneClickSignIn(page: Page, next = '/demo'): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`)
  await page.getByRole('button', { name: 'Sign in as operator (demo)' }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
  await expect(page.getByText('operator', { exact: true }).first()).toBeVisible()
}

test.describe('the demo control room', () => {
  test('one click signs in as operator and opens the control room; a viewer is told it needs the operator role', async ({ page, browser }, testInfo) => {
    await page.goto('/login?next=%2Fdemo')
    await expect(page.getByRole('button', { name: 'Sign in as operator (demo)' })).toBeVisible()
    await lookAt(page, testInfo, 'demo-login')
    await oneClickSignIn(page)
    await expect(page).toHaveURL(/\/demo$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Demo control room' })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toHaveAttribute('aria-current', 'page')
    await expect(page.getByRole('link', { name: 'us-east-to-eu-west' })).toBeVisible()

    const viewerContext = await browser.newContext({ viewport: page.viewportSize() ?? undefined })
    const viewer = await viewerContext.newPage()
    await signIn(viewer, 'viewer', '/demo')
    await viewer.goto('/demo')
    await expect(viewer.getByRole('heading', { name: 'The demo control room needs the operator role' })).toBeVisible()
    await expect(viewer.getByRole('button', { name: /^Run/ })).toHaveCount(0)
    await expect(viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Demo' })).toHaveCount(0)
    await lookAt(viewer, testInfo, 'demo-viewer')
    await viewerContext.close()
  })

  test("the worked example runs from the page, its narration advances to succeeded, and its steps lead to the excerpt's logs", async ({ page, request }, testInfo) => {
    await oneClickSignIn(page)
    const scenarios = page.getByRole('list', { name: 'Scenarios' })
    await scenarios.getByRole('button', { name: /The KIP's worked example/ }).click()
    const started = page.waitForResponse((response) => response.url().endsWith('/api/v1/demo/scenarios/kip-worked-example/run') && response.request().method() === 'POST')
    await page.getByRole('button', { name: /^Run( again)?: The KIP's worked example$/ }).click()
    const { run } = (await (await started).json()) as RunAnswer
    const { sourceCluster, destinationCluster, mirror, topic } = run.context
    await expectError(await request.post('/api/v1/demo/scenarios/kip-worked-example/run', { headers: asOperator }), 409, 'CONFLICT')
    await expectError(await request.post('/api/v1/demo/scenarios/nothing-like-it/run', { headers: asOperator }), 404, 'NOT_FOUND')

    const narration = page.getByRole('region', { name: `Run ${run.id}` })
    await expect(narration).toBeVisible()
    // The narration advances on its own: the steps turn succeeded one after another, then the run does.
    await expect(narration.getByRole('img', { name: 'Step 1: succeeded' })).toBeVisible({ timeout: 30_000 })
    await expect(narration.getByRole('img', { name: 'Step 8: succeeded' })).toBeVisible({ timeout: 60_000 })
    await expect(narration.getByText('Succeeded', { exact: true })).toBeVisible()
    await expect(narration.getByText('8 of 8 steps')).toBeVisible()
    await expect(page.getByRole('button', { name: "Run again: The KIP's worked example" })).toBeEnabled()

    const steps = narration.getByRole('list', { name: 'Narration' }).getByRole('listitem').filter({ has: page.getByRole('heading', { level: 4 }) })
    await expect(steps).toHaveCount(8)
    // Step 5 narrates the excerpt's source table, step 7 its destination table after STOPPING.
    const logOf = (step: number) =>
      steps
        .nth(step)
        .getByRole('list', { name: 'Log' })
        .getByRole('listitem')
        .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('aria-label')))
    expect(await logOf(4)).toEqual(narrated(SOURCE_TABLE))
    expect(await logOf(6)).toEqual(narrated(DESTINATION_TABLE))
    await expect(steps.nth(6).getByRole('listitem', { name: '3 ABORT 4001' })).toContainText('✕ ABORT')

    // Each step links to the page that shows it: the failover step to the destination's partition page and the operation.
    const partitionLink = steps.nth(6).getByRole('link', { name: `Partition ${topic}-0 of ${mirror}` })
    await expect(partitionLink).toHaveAttribute('href', `/mirrors/${mirror}/partitions/${topic}/0`)
    await expect(steps.nth(6).getByRole('link', { name: 'Failover operation' })).toHaveAttribute('href', /^\/operations\/[^/]+$/)
    await expect(steps.nth(0).getByRole('link', { name: `Cluster ${sourceCluster}` })).toHaveAttribute('href', `/clusters/${sourceCluster}`)
    await expect(steps.nth(7).getByRole('link', { name: `Partition ${topic}-0 of ${mirror}-back` })).toHaveAttribute('href', `/mirrors/${mirror}-back/partitions/${topic}/0`)
    await lookAt(page, testInfo, 'demo-worked-example')

    // The logs those pages show, through the records API (the partition page's strips are another branch's).
    const table = async (cluster: string) =>
      (await okJson<RecordsAnswer>(await request.get(`/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records`, { headers: asViewer }))).records.map(
        (r) => [r.offset, r.type, r.producerId, r.key === null ? null : `${r.key}=${r.value}`],
      )
    expect(await table(destinationCluster)).toEqual(DESTINATION_TABLE)
    // After the failback A was truncated to the last mirror position and copied B's markers: it reads as B.
    expect(await table(sourceCluster)).toEqual(DESTINATION_TABLE)
  })

  test('a workload pauses, resumes and takes a new rate; a bad rate is refused with its code', async ({ page }, testInfo) => {
    await oneClickSignIn(page)
    const row = page.getByRole('listitem', { name: 'payments-idempotent', exact: true })
    await expect(row).toBeVisible()
    const rate = row.getByLabel('Rate of payments-idempotent (records/s)')
    const original = await rate.inputValue()

    await row.getByRole('button', { name: 'Pause payments-idempotent' }).click()
    await expect(row.getByText('Paused', { exact: true }).filter({ visible: true })).toBeVisible()
    await row.getByRole('button', { name: 'Resume payments-idempotent' }).click()
    await expect(row.getByText(/^(Running|Failing)$/).filter({ visible: true })).toBeVisible()
    await expect(row.getByRole('button', { name: 'Pause payments-idempotent' })).toBeVisible()

    await rate.fill('5000')
    await row.getByRole('button', { name: 'Set the rate of payments-idempotent' }).click()
    await expect(row.getByRole('alert').filter({ hasText: 'Could not set the rate' })).toContainText('VALIDATION_FAILED')
    await lookAt(page, testInfo, 'demo-workload-refused')

    await rate.fill('7')
    await row.getByRole('button', { name: 'Set the rate of payments-idempotent' }).click()
    await expect(row.getByRole('alert')).toHaveCount(0)
    await page.reload()
    await expect(page.getByRole('listitem', { name: 'payments-idempotent', exact: true }).getByLabel('Rate of payments-idempotent (records/s)')).toHaveValue('7')
    await page.getByLabel('Rate of payments-idempotent (records/s)').fill(original)
    await page.getByRole('button', { name: 'Set the rate of payments-idempotent' }).click()
    await expect(page.getByLabel('Rate of payments-idempotent (records/s)')).toHaveValue(original)
    await expect(page.getByRole('button', { name: 'Set the rate of payments-idempotent' })).toBeDisabled()
  })

  test('the overview leads to the control room; the live mirror shows the lag the engine measured under the demo traffic', async ({ page }, testInfo) => {
    await oneClickSignIn(page)
    await page.goto('/')
    await expect(page.getByRole('link', { name: /Open the demo control room/ })).toHaveAttribute('href', '/demo')
    await expect(page.getByRole('link', { name: 'us-east-to-eu-west' }).first()).toBeVisible()
    await lookAt(page, testInfo, 'demo-overview')

    await page.goto('/mirrors/us-east-to-eu-west')
    await expect(page.getByRole('heading', { level: 1, name: 'us-east-to-eu-west' })).toBeVisible()
    // The live mirror's throttled link falls behind in every clickstream burst (each minute): the chart's peak is not 0.
    await expect(page.getByRole('img', { name: /^Lag chart, last 5 min\./ })).toHaveAccessibleName(/peak [1-9][\d.]*k? in the last/, { timeout: 30_000 })
    await lookAt(page, testInfo, 'demo-mirror')
  })

  test('a broker is stopped with one click and healed from the active faults; a fault that does not apply shows the 409', async ({ page }, testInfo) => {
    await oneClickSignIn(page)
    await expect(page.getByText('None: every broker is up and every link is whole.')).toBeVisible()
    await expect(page.getByLabel('on cluster')).toHaveValue('us-east')
    const brokerCard = page.getByRole('group', { name: 'Stop or start a broker' })
    await brokerCard.getByLabel('Broker').selectOption('2')
    await brokerCard.getByRole('button', { name: 'Stop broker' }).click()

    const active = page.getByRole('list', { name: 'Active faults' })
    const fault = active.getByRole('listitem', { name: 'Broker stopped: broker 2 of us-east' })
    await expect(fault).toBeVisible()
    await expect(brokerCard.getByRole('status')).toBeVisible()
    await expect(brokerCard.getByLabel('Broker')).toContainText('2 · stopped')

    const linkCard = page.getByRole('group', { name: 'Cut or heal a link' })
    await linkCard.getByRole('button', { name: 'Heal link' }).click()
    await expect(linkCard.getByRole('alert')).toContainText('CONFLICT')
    await lookAt(page, testInfo, 'demo-fault-active')

    await fault.getByRole('button', { name: 'Heal Broker stopped: broker 2 of us-east' }).click()
    await expect(page.getByText('None: every broker is up and every link is whole.')).toBeVisible()
    await expect(brokerCard.getByLabel('Broker')).toContainText('2 · alive')
  })
})
