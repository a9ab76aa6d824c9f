import { expect, test } from './support/csp'
import { asViewer, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * A new operator sets everything up through the pages (issue #19): two embedded clusters, a topic with a
 * test record, a mirror chosen by pattern with its dry-run plan, confirmed, watched to MIRRORING, then its
 * settings changed. Every form is looked at (axe + screenshots) on the way.
 */
test('an operator adds clusters, a topic and a record, and creates a mirror by pattern through the pages', async ({ page, request }, testInfo) => {
  // Five forms looked at in two themes on a shared 2-core machine: well over the default minute.
  test.setTimeout(180_000)
  const source = unique('east')
  const destination = unique('west')
  const topic = unique('orders')
  const mirror = unique('dr')

  await signIn(page, 'operator', '/')
  await page.getByRole('link', { name: 'Add a cluster' }).first().click()
  await expect(page).toHaveURL(/\/clusters#add-cluster$/)
  const form = page.getByRole('form', { name: 'Add a cluster' })
  // Inline validation from the API's schema, before anything is sent.
  await form.getByLabel('Name', { exact: true }).fill('not a name')
  await form.getByLabel('Brokers', { exact: true }).fill('12')
  await form.getByLabel('Brokers', { exact: true }).blur()
  await expect(form.getByText(/must be 1 to 249 characters/)).toBeVisible()
  await expect(form.getByText(/At most 9$/)).toBeVisible()
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'manage-add-cluster')
  for (const name of [source, destination]) {
    await form.getByLabel('Name', { exact: true }).fill(name)
    await form.getByLabel('Brokers', { exact: true }).fill('1')
    await form.getByRole('button', { name: 'Add the cluster' }).click()
    await expect(page.getByRole('status').filter({ hasText: `Added embedded cluster ${name}` })).toBeVisible()
  }
  await expect(page.getByRole('list', { name: 'Clusters' }).getByRole('link', { name: source, exact: true })).toBeVisible()

  // The source's page: create a topic, then produce a test record to it.
  await page.getByRole('list', { name: 'Clusters' }).getByRole('link', { name: source, exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: source })).toBeVisible()
  await page.getByRole('button', { name: 'Create topic…' }).click()
  const create = page.getByRole('dialog', { name: `Create a topic on ${source}` })
  await create.getByLabel('Topic name', { exact: true }).fill(topic)
  await create.getByLabel('Partitions', { exact: true }).fill('2')
  await create.getByLabel('Configs', { exact: true }).fill('retention.ms=86400000')
  await create.getByRole('button', { name: 'Review' }).click()
  await expect(create.getByRole('group', { name: 'What this does' })).toContainText(`Creates ${topic} on ${source} with 2 partitions`)
  await lookAt(page, testInfo, 'manage-create-topic')
  await create.getByRole('button', { name: `Create ${topic}` }).click()
  await expect(page.getByRole('status').filter({ hasText: `Created topic ${topic} with 2 partitions.` })).toBeVisible()

  await page.getByRole('button', { name: `Manage topic ${topic}` }).click()
  const manage = page.getByRole('dialog', { name: `Topic ${topic} on ${source}` })
  await manage.getByLabel('Key', { exact: true }).fill('order-1')
  await manage.getByLabel('Partition', { exact: true }).fill('0')
  await manage.getByLabel('Value', { exact: true }).fill('{"total": 42}')
  await manage.getByLabel('Headers', { exact: true }).fill('trace=abc')
  await manage.getByRole('button', { name: 'Produce the record' }).click()
  await expect(manage.getByRole("status")).toContainText(`Written to ${topic}-0 at offset 0.`)
  await lookAt(page, testInfo, 'manage-produce')
  await manage.getByRole('button', { name: 'Close' }).click()

  // The mirror, with its topics by pattern: the preview names what the pattern takes before any request.
  await page.getByRole('link', { name: 'Mirror from this cluster…' }).click()
  await expect(page).toHaveURL(/\/create\/mirror\?source=/)
  const wizard = page.getByRole('form', { name: 'Create a mirror' })
  await wizard.getByLabel('Mirror name', { exact: true }).fill(mirror)
  await expect(wizard.getByLabel('Source cluster', { exact: true })).toHaveValue(source)
  await wizard.getByLabel('Destination cluster', { exact: true }).selectOption(destination)
  await wizard.getByLabel('Include patterns', { exact: true }).fill(`${topic.slice(0, 6)}.*`)
  await wizard.getByLabel('Exclude patterns', { exact: true }).fill('__.*\nnothing-matches-this')
  const preview = page.getByRole('region', { name: 'Topics this mirror takes' })
  await expect(preview.getByRole('heading')).toContainText(/Takes \d+ topics? · \d+ partitions?/)
  await expect(preview.getByRole('list', { name: 'Matching source topics' })).toContainText(topic)
  await wizard.getByText('Every setting at its default').click()
  await expect(wizard.getByText('Default: 60000 ms')).toBeVisible()
  await expectNoSidewaysScroll(page)

  await wizard.getByRole('button', { name: 'Preview the plan (dry run)' }).click()
  const plan = page.getByRole('region', { name: 'Plan per partition' })
  await expect(plan.getByRole('row', { name: new RegExp(`^${topic}-0 `) })).toBeVisible()
  await expect(plan.getByRole('row', { name: new RegExp(`^${topic}-1 `) })).toBeVisible()
  await expect(page.getByTestId('plan-summary')).toHaveText(/No destination record is removed/)
  await expectNoSidewaysScroll(page)
  // One look at the wizard, with its plan: the full-page shot and axe take in the filled form above it too.
  await lookAt(page, testInfo, 'manage-mirror-plan')
  await page.getByRole('button', { name: `Create mirror ${mirror}` }).click()

  await expect(page).toHaveURL(new RegExp(`/mirrors/${mirror}$`))
  const states = page.getByRole('group', { name: 'Partitions by state' })
  await expect(states.locator('[data-state="MIRRORING"]')).toHaveText(/MIRRORING\s*2/, { timeout: 60_000 })
  const created = await okJson<{ topics: string[]; config: Record<string, unknown> }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))
  expect(created.topics).toContain(topic)
  expect(created.config['topics.include']).toEqual([`${topic.slice(0, 6)}.*`])

  // Its settings: the same config, saved with If-Match; deleting waits for STOPPED.
  await page.getByRole('link', { name: 'Settings' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `Settings of ${mirror}` })).toBeVisible()
  const settings = page.getByRole('form', { name: 'Mirror settings' })
  await settings.getByLabel(/^Retry attempts/).fill('5')
  await expect(page.getByText(/partitions are not STOPPED/)).toBeVisible()
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'manage-mirror-settings')
  await settings.getByRole('button', { name: 'Save 1 change' }).click()
  await expect(settings.getByRole('status')).toContainText('Saved')
  const updated = await okJson<{ config: Record<string, unknown> }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))
  expect(updated.config['mirror.failed.retry.max.attempts']).toBe(5)
})
