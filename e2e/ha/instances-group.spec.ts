import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createTopic, okJson } from '../support/http'
import { lookAt } from '../support/look'
import { expectNoSidewaysScroll } from '../support/overview-setup'
import { signIn } from '../support/session'

/**
 * Two instances of a group (playwright.ha.config.ts): this server (e2e-ui) and one serving the API only (e2e-other).
 * Two Kafka mirrors created here are balanced one to each (creating one makes the group rebalance); /instances shows
 * the group (both alive, the leader, their addresses, what each runs) and the page of the mirror the other instance
 * runs says so, its figures read from the owner through this instance; so does one of its partitions' page.
 */

interface InstanceView {
  id: string
  alive: boolean
  mirrors: string[]
  leader?: boolean
  url?: string | null
}

test('the instances page shows the group, and a mirror page says which instance runs it @wide-only', async ({ page, request }, testInfo) => {
  const clusters = { a: { bootstrap: process.env.E2E_HA_SOURCE_BOOTSTRAP! }, b: { bootstrap: process.env.E2E_HA_DESTINATION_BOOTSTRAP! } }
  const run = Date.now().toString(36)
  const [source, destination] = [`ha-ui-a-${run}`, `ha-ui-b-${run}`]
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: source, kind: 'kafka', bootstrapServers: [clusters.a.bootstrap] } }), 201)
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: destination, kind: 'kafka', bootstrapServers: [clusters.b.bootstrap] } }), 201)
  const mirrors = [`orders-${run}`, `payments-${run}`]
  for (const name of mirrors) {
    await createTopic(request, source, name, 3)
    await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name, sourceCluster: source, destinationCluster: destination, topics: [name] } }), 201)
  }
  // One each once the group has rebalanced (the other instance takes the clusters from the control cluster first).
  let group: InstanceView[] = []
  await expect(async () => {
    group = (await okJson<{ instances: InstanceView[] }>(await request.get('/api/v1/instances', { headers: asViewer }))).instances
    expect(group.map(({ id, alive, mirrors: runs }) => [id, alive, runs.filter((name) => mirrors.includes(name)).length])).toEqual([
      ['e2e-other', true, 1],
      ['e2e-ui', true, 1],
    ])
  }).toPass({ timeout: 90_000, intervals: [500] })
  const elsewhere = group.find(({ id }) => id === 'e2e-other')!.mirrors.find((name) => mirrors.includes(name))!

  await signIn(page, 'viewer', '/instances')
  await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible()
  await expect(page.getByTestId('single-instance')).toHaveCount(0)
  const rows = page.getByTestId('instance')
  await expect(rows).toHaveCount(2)
  await expect(page.getByTestId('instance-leader')).toHaveCount(1)
  const other = page.locator('[data-testid="instance"][data-instance="e2e-other"]')
  await expect(other.getByTestId('instance-url')).toHaveText(process.env.E2E_HA_OTHER_URL!)
  await expect(other.getByRole('list', { name: 'Mirrors run by e2e-other' }).getByRole('link', { name: elsewhere, exact: true })).toBeVisible()
  await expect(page.locator('[data-testid="instance"][data-instance="e2e-ui"]')).toContainText('this instance')
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'instances-group', { alsoNarrow: true })

  // The mirror the other instance runs: its page, served here, reads it from the owner and says where it runs.
  await other.getByRole('link', { name: elsewhere, exact: true }).click()
  await expect(page).toHaveURL(new RegExp(`/mirrors/${elsewhere}$`))
  await expect(page.getByRole('heading', { level: 1, name: elsewhere })).toBeVisible()
  await expect(page.getByTestId('mirror-owner')).toHaveText('Runs on e2e-other')
  await expect(page.getByRole('group', { name: 'Partitions by state' })).toContainText('3 partitions')
  await lookAt(page, testInfo, 'mirror-runs-on', { alsoNarrow: true })

  // Its other pages, rendered here from what the owner answers (not this instance's 404).
  for (const [sub, title] of [['settings', `Settings of ${elsewhere}`], ['failover', `Fail over ${elsewhere}`]] as const) {
    await page.goto(`/mirrors/${elsewhere}/${sub}`)
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible()
    await expect(page.getByText(destination).first()).toBeVisible()
  }

  // A partition's page, rendered here from the owner's mirror and partitions (not this instance's 404).
  await page.goto(`/mirrors/${elsewhere}/partitions/${elsewhere}/0`)
  await expect(page.getByRole('heading', { level: 1, name: `${elsewhere} / ${elsewhere} / 0` })).toBeVisible()
  await expect(page.getByTestId('mirror-owner')).toContainText('Runs on e2e-other')
  await lookAt(page, testInfo, 'partition-runs-on', { alsoNarrow: true })
})
