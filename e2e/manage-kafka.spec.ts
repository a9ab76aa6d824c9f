import { Kafka, logLevel } from 'kafkajs'
import { kafkaTestClusters } from './support/kafka-test-clusters'
import { expect, test } from './support/csp'
import { asViewer, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * An operator adds real Kafka clusters through the clusters page, against the test brokers `npm test` starts
 * (scripts/kafka/clusters.ts; read from .kafka/run/clusters.json): a wrong SASL password is refused with the
 * broker's reason and leaves the password nowhere in the page; the right one (SCRAM-SHA-512) and a plain
 * cluster are added; the Kafka cluster's page shows its broker, its topic and its consumer group.
 */
test('an operator adds Kafka clusters from the clusters page; a wrong password is refused and shown nowhere', async ({ page, request }, testInfo) => {
  // Three connection checks against JVM brokers and two pages looked at in two themes.
  test.setTimeout(120_000)
  const { a, b } = kafkaTestClusters()
  const sasl = b.sasl!
  const topic = unique('kafka-orders')
  const group = unique('kafka-billing')
  const kafka = new Kafka({ clientId: 'e2e-manage-kafka', brokers: [a.bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true })
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    await producer.send({ topic, acks: -1, messages: [{ partition: 0, key: 'order-1', value: '{"total": 42}' }] })
    await producer.disconnect()
    await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '1' }] })
  } finally {
    await admin.disconnect()
  }

  await signIn(page, 'operator', '/clusters')
  const form = page.getByRole('form', { name: 'Add a cluster' })
  await form.getByText('Kafka', { exact: true }).click()
  const wrong = `wrong-${unique('pw')}`
  await form.getByLabel('Name', { exact: true }).fill(unique('kafka-sasl'))
  await form.getByLabel('Bootstrap servers', { exact: true }).fill(sasl.bootstrap)
  await form.getByLabel('Mechanism', { exact: true }).selectOption('scram-sha-512')
  await form.getByLabel('Username', { exact: true }).fill(sasl.username)
  await form.getByLabel('Password', { exact: true }).fill(wrong)
  await form.getByRole('button', { name: 'Check the connection and add' }).click()
  const refusal = form.getByRole('alert').filter({ hasText: 'The server refused the cluster' })
  await expect(refusal).toContainText('CLUSTER_CONNECTION_FAILED')
  await expect(refusal).toContainText(/authentication failed/i)
  await expect(form.getByLabel('Password', { exact: true })).toHaveValue('')
  expect(await page.content()).not.toContain(wrong)
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'manage-kafka-sasl-refused')

  // The same settings with the right password: the broker accepts, the cluster is added.
  await form.getByLabel('Password', { exact: true }).fill(sasl.password)
  await form.getByRole('button', { name: 'Check the connection and add' }).click()
  await expect(page.getByRole('status').filter({ hasText: /Added kafka cluster .* with 1 broker\./ })).toBeVisible()
  expect(await page.content()).not.toContain(sasl.password)

  const plain = unique('kafka-a')
  await form.getByText('Kafka', { exact: true }).click()
  await form.getByLabel('Name', { exact: true }).fill(plain)
  await form.getByLabel('Bootstrap servers', { exact: true }).fill(a.bootstrap)
  await form.getByRole('button', { name: 'Check the connection and add' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Added kafka cluster ${plain} with 1 broker.` })).toBeVisible()
  const listed = await okJson<{ clusters: Array<{ name: string; kind: string; clusterId: string }> }>(await request.get('/api/v1/clusters', { headers: asViewer }))
  expect(listed.clusters.find((c) => c.name === plain)).toMatchObject({ kind: 'kafka', clusterId: a.clusterId })
  expect(JSON.stringify(listed)).not.toContain(sasl.password)

  await page.getByRole('list', { name: 'Clusters' }).getByRole('link', { name: plain, exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: plain })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Brokers (1/1 alive)' })).toBeVisible()
  const row = page.getByRole('region', { name: 'Topics table' }).getByRole('row', { name: new RegExp(`^${topic}\\b`) })
  await expect(row.getByRole('cell').nth(1)).toHaveText('2')
  await expect(row).toContainText('writable')
  await expect(page.getByRole('list', { name: 'Consumer groups' })).toContainText(group)
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'cluster-kafka')
})
