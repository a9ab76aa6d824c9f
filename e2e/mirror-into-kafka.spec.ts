import { Kafka, logLevel } from 'kafkajs'
import { kafkaTestClusters } from './support/kafka-test-clusters'
import { expect, test } from './support/csp'
import { asOperator, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * A mirror into a real Kafka cluster (the destination emulation, DESIGN.md §5), on the test brokers `npm test`
 * starts: the mirror page and the partition page carry a labelled "Emulated" note saying what differs from a
 * native mirror, which opens from the keyboard.
 */
test('a mirror into a Kafka cluster labels what is emulated on the mirror and partition pages', async ({ page, request }, testInfo) => {
  // Two Kafka clusters connected, a mirror started, two pages looked at in two themes, on a shared machine.
  test.setTimeout(180_000)
  const { a, b } = kafkaTestClusters()
  const topic = unique('kafka-into')
  const kafka = new Kafka({ clientId: 'e2e-mirror-into-kafka', brokers: [a.bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    await producer.send({ topic, acks: -1, messages: [{ partition: 0, key: 'order-1', value: '{"total": 42}' }, { partition: 0, key: 'order-2', value: '{"total": 7}' }] })
    await producer.disconnect()
  } finally {
    await admin.disconnect()
  }
  const source = unique('ka')
  const destination = unique('kb')
  const mirror = unique('into-kafka')
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: source, kind: 'kafka', bootstrapServers: [a.bootstrap] } }), 201)
  await okJson(await request.post('/api/v1/clusters', { headers: asOperator, data: { name: destination, kind: 'kafka', bootstrapServers: [b.bootstrap] } }), 201)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: [topic] } }), 201)

  await signIn(page, 'viewer', `/mirrors/${mirror}`)
  const note = page.getByTestId('emulation-notes-mirror')
  await expect(note).toContainText('Emulated')
  await note.locator('summary').focus()
  await page.keyboard.press('Enter')
  await expect(note).toContainText('one produce per source batch')
  // Test cluster b runs an authorizer: other clients are refused by the mirror topic's DENY WRITE ACL.
  await expect(note).toContainText('refused by ACL')
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'mirror-into-kafka')

  await page.goto(`/mirrors/${mirror}/partitions/${topic}/0`)
  const partitionNote = page.getByTestId('emulation-notes-partition')
  await expect(partitionNote).toBeVisible()
  await partitionNote.locator('summary').click()
  await expect(partitionNote).toContainText('identical to the source')
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'partition-into-kafka')
})
