import { expect, test } from './support/csp'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { setUpMirror } from './mirror-support'
import { expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * What the management pages refuse, and who sees them: deleting a MIRRORING mirror topic shows the API's
 * reason and changes nothing; a Kafka cluster the server cannot add shows its code and leaves no secret in the
 * page; a cluster no mirror uses is removed; a viewer sees none of these controls.
 */
test('a delete of a MIRRORING mirror topic from the cluster page shows why and changes nothing', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000)
  const setup = await setUpMirror(request, { [unique('payments')]: 1 })
  const topic = Object.keys(setup.topics)[0]!
  await signIn(page, 'operator', `/clusters/${setup.destination}`)
  await page.getByRole('button', { name: `Manage topic ${topic}` }).click()
  const dialog = page.getByRole('dialog', { name: `Topic ${topic} on ${setup.destination}` })
  await expect(dialog.getByRole('note')).toContainText(`A read-only mirror topic of ${setup.mirror}`)
  // Wholly on screen at either size (a phone once centred it in a layout viewport widened by the table).
  const box = (await dialog.boundingBox())!
  expect(box.x).toBeGreaterThanOrEqual(0)
  expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width)
  await dialog.getByRole('button', { name: 'Delete topic' }).click()
  await expect(dialog.getByRole('button', { name: `Delete ${topic}` })).toBeDisabled()
  await dialog.getByLabel(`Type ${topic} to confirm`).fill(topic)
  await dialog.getByRole('button', { name: `Delete ${topic}` }).click()
  const refusal = dialog.getByRole('alert').filter({ hasText: 'Refused' })
  await expect(refusal).toContainText('TOPIC_READ_ONLY')
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'manage-delete-topic-refused')
  // Nothing changed: the topic is still there and still mirrored.
  const topics = await okJson<{ topics: Array<{ name: string; readOnly: boolean }> }>(await request.get(`/api/v1/clusters/${setup.destination}/topics`, { headers: asViewer }))
  expect(topics.topics.find((entry) => entry.name === topic)).toMatchObject({ readOnly: true })
  const mirror = await okJson<{ partitionsByState: Record<string, number> }>(await request.get(`/api/v1/mirrors/${setup.mirror}`, { headers: asViewer }))
  expect(mirror.partitionsByState).toEqual({ MIRRORING: 1 })
})

test('the Kafka form shows the server’s refusal with its code and keeps no secret; an unused cluster is removed', async ({ page, request }, testInfo) => {
  const password = `pw-${unique('secret')}`
  const spare = unique('spare')
  await createCluster(request, spare, { brokers: 1 })
  await signIn(page, 'operator', '/clusters')
  const form = page.getByRole('form', { name: 'Add a cluster' })
  await form.getByText('Kafka', { exact: true }).click()
  await form.getByLabel('Name', { exact: true }).fill(unique('kafka'))
  await form.getByLabel('Bootstrap servers', { exact: true }).fill('kafka-1.internal:9092\nkafka-2.internal:9092')
  await form.getByLabel('Mechanism', { exact: true }).selectOption('scram-sha-512')
  await form.getByLabel('Username', { exact: true }).fill('mirrorboard')
  await form.getByLabel('Password', { exact: true }).fill(password)
  await form.getByText('Connect over TLS').click()
  await form.getByLabel('CA certificate (PEM)').fill('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----')
  await form.getByRole('button', { name: 'Check the connection and add' }).click()
  // A connection that fails for no Kafka or TLS reason answers after the same 6 s whatever refused it (registry.ts).
  await expect(form.getByRole('alert').filter({ hasText: 'The server refused the cluster' })).toContainText('CLUSTER_CONNECTION_FAILED', { timeout: 20_000 })
  await expect(form.getByLabel('Password', { exact: true })).toHaveValue('')
  expect(await page.content()).not.toContain(password)
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'manage-kafka-refused')

  await page.getByRole('button', { name: `Remove cluster ${spare}` }).click()
  const confirm = page.getByRole('dialog', { name: `Remove cluster ${spare}?` })
  await expect(confirm).toContainText('This cannot be undone')
  await confirm.getByRole('button', { name: 'Remove the cluster' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Removed cluster ${spare}` })).toBeVisible()
  expect((await request.get(`/api/v1/clusters/${spare}`, { headers: asViewer })).status()).toBe(404)
})

test('a viewer sees none of the management controls', async ({ page, request }) => {
  // Seven page loads on a shared 2-core machine.
  test.setTimeout(120_000)
  // The mirror only has to exist: no waiting for MIRRORING.
  const setup = { source: unique('src'), destination: unique('dst'), mirror: unique('mirror') }
  await createCluster(request, setup.source, { brokers: 1 })
  await createCluster(request, setup.destination, { brokers: 1 })
  await createTopic(request, setup.source, unique('audit'))
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: setup.mirror, sourceCluster: setup.source, destinationCluster: setup.destination } }), 201)
  await signIn(page, 'viewer', '/clusters')
  await expect(page.getByRole('list', { name: 'Clusters' }).getByRole('link', { name: setup.source, exact: true })).toBeVisible()
  await expect(page.getByRole('form', { name: 'Add a cluster' })).toHaveCount(0)
  await expect(page.locator('main').getByRole('button')).toHaveCount(0)
  await expect(page.getByRole('link', { name: /Create a mirror/ })).toHaveCount(0)

  await page.goto(`/clusters/${setup.source}`)
  await expect(page.getByRole('heading', { level: 1, name: setup.source })).toBeVisible()
  await expect(page.locator('main').getByRole('button')).toHaveCount(0)
  await expect(page.getByRole('link', { name: /Mirror from this cluster/ })).toHaveCount(0)

  await page.goto('/')
  await expect(page.getByRole('link', { name: 'Add a cluster' })).toHaveCount(0)

  await page.goto(`/mirrors/${setup.mirror}`)
  await expect(page.getByRole('heading', { level: 1, name: setup.mirror })).toBeVisible()
  await expect(page.getByRole('link', { name: 'Settings' })).toHaveCount(0)
  for (const path of ['/create/mirror', `/mirrors/${setup.mirror}/settings`]) {
    await page.goto(path)
    await expect(page.getByRole('heading', { name: 'This needs the operator role' })).toBeVisible()
    await expect(page.getByRole('form')).toHaveCount(0)
  }
})
