import { expect, test } from '@playwright/test'
import { asOperator, createTopic, okJson } from '../support/http'
import { lookAt } from '../support/look'
import { expectNoSidewaysScroll } from '../support/overview-setup'
import { signIn } from '../support/session'

/**
 * The control cluster as /instances shows it (playwright.ha.config.ts: both instances reach their control broker
 * through a TCP proxy this journey cuts). Reachable: a panel with since when, its address and group, how old this
 * instance's copy of each control topic is, no outage yet. Cut off for longer than the session timeout: a red
 * incident banner above the group — since when, the last error, changes refused with CONTROL_CLUSTER_UNAVAILABLE
 * (an operator's pause is refused so), reads and the mirrors going on, the group below only as last read (this
 * instance cut off, the other not known, nobody called dead). Restored:
 * reachable again, and the outage it went through. Runs after instances-group.spec.ts (alphabetical), which needs a
 * settled group.
 */
test('the instances page shows the control cluster reachable, as an incident while it is cut off, and the outage once it answers again @wide-only', async ({ page, request }, testInfo) => {
  test.setTimeout(240_000)
  const admin = process.env.E2E_HA_CONTROL_ADMIN_URL!
  const run = Date.now().toString(36)
  const [source, destination, mirror] = [`ha-co-a-${run}`, `ha-co-b-${run}`, `outage-${run}`]
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: source, kind: 'kafka', bootstrapServers: [process.env.E2E_HA_SOURCE_BOOTSTRAP!] } }), 201)
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: destination, kind: 'kafka', bootstrapServers: [process.env.E2E_HA_DESTINATION_BOOTSTRAP!] } }), 201)
  await createTopic(request, source, mirror, 1)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: [mirror] } }), 201)

  await signIn(page, 'viewer', '/instances')
  const panel = page.getByTestId('control-cluster')
  await expect(page.getByTestId('control-cluster-status')).toHaveText('●Reachable')
  // None yet, unless a busy machine kept the control cluster from answering for a session timeout already (the
  // page says so truthfully: seen at a load of 8): the outage after the cut below must then be another one.
  await expect(panel.getByTestId('control-last-outage')).toHaveText(/^none since this instance started$|without an answer/)
  const outageBefore = await panel.getByTestId('control-last-outage').textContent()
  await expect(panel.getByTestId('control-view-age')).toContainText(/last read \d+ (s|ms) ago/)
  await panel.getByText('Each control topic as this instance last read it').click()
  await expect(panel.getByRole('list', { name: 'Control topics' }).getByRole('listitem')).toHaveCount(5)
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'instances-control-reachable', { alsoNarrow: true })

  try {
    expect((await request.post(`${admin}/cut`)).status()).toBe(200)
    const incident = page.getByTestId('control-cluster-incident')
    // Nothing answered for a session timeout (6 s here), then the page's next read (every 5 s).
    await expect(incident).toBeVisible({ timeout: 60_000 })
    await expect(incident.getByRole('heading', { level: 2 })).toHaveText(/Control cluster unreachable/)
    await expect(incident).toContainText('CONTROL_CLUSTER_UNAVAILABLE')
    await expect(incident).toContainText('keep mirroring')
    await expect(page.getByTestId('control-cluster')).toHaveCount(0)
    // Nobody's heartbeat can be read here: this instance is cut off, the other not known, none called dead.
    await expect(page.locator('[data-testid="instance"][data-instance="e2e-ui"]').getByTestId('instance-status')).toHaveText('⚠Cut off')
    await expect(page.locator('[data-testid="instance"][data-instance="e2e-other"]').getByTestId('instance-status')).toHaveText('?Not known')
    // The change the banner says is refused, is.
    const refused = await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} })
    expect(refused.status()).toBe(503)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('CONTROL_CLUSTER_UNAVAILABLE')
    // The client's error arrives once its retries give up.
    await expect(incident.getByTestId('control-last-error')).toBeVisible({ timeout: 90_000 })
    await expectNoSidewaysScroll(page)
    await lookAt(page, testInfo, 'instances-control-unreachable', { alsoNarrow: true })
  } finally {
    await request.post(`${admin}/restore`)
  }

  await expect(page.getByTestId('control-cluster-status')).toHaveText('●Reachable', { timeout: 90_000 })
  await expect(page.getByTestId('control-last-outage')).toContainText('without an answer')
  await expect(page.getByTestId('control-last-outage')).not.toHaveText(outageBefore ?? '')
  await expect(page.getByTestId('control-cluster-incident')).toHaveCount(0)
  await lookAt(page, testInfo, 'instances-control-recovered', { alsoNarrow: true })
})
