import { afterEach, describe, expect, it } from 'vitest'
import { openTestCluster, type TestCluster } from './testing'

/**
 * Topic configs changed on a live cluster reach the open replica logs at once, as Kafka's dynamic topic
 * configs do (issue #14: `cleanup.policy=compact` honoured for any topic): no restart needed.
 */

let t: TestCluster
afterEach(async () => {
  await t?.cleanup()
})

const TP = { topic: 'kv', partition: 0 }

async function putAll(t: TestCluster) {
  // One batch each, each in a segment of its own (segment.bytes 100), so rolled segments exist to clean.
  const pairs: Array<[string, string]> = [['k1', 'a'], ['k2', 'a'], ['k1', 'b'], ['k2', 'b'], ['k3', 'a']]
  for (const [key, value] of pairs) {
    await t.cluster.produce('kv', { partition: 0, idempotent: false, records: [{ key, value }] })
  }
}

async function compactEveryReplica(t: TestCluster) {
  const { replicas } = await t.cluster.describePartition(TP)
  return Promise.all(replicas.map((brokerId) => t.cluster.replicaLog(TP, brokerId)!.compact()))
}

describe('topic config changes on open logs', () => {
  it('a topic switched to cleanup.policy=compact compacts every replica now, and stops when switched back', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'kv', partitions: 1, configs: { 'segment.bytes': '100', 'min.cleanable.dirty.ratio': '0' } })
    await putAll(t)
    expect((await compactEveryReplica(t)).map((outcome) => outcome.kind)).toEqual(['nothing-to-clean', 'nothing-to-clean', 'nothing-to-clean'])

    await t.cluster.updateTopicConfigs('kv', { set: { 'cleanup.policy': 'compact' } })
    expect((await compactEveryReplica(t)).map((outcome) => outcome.kind)).toEqual(['cleaned', 'cleaned', 'cleaned'])
    expect((await t.cluster.readRecords('kv', 0, { limit: 10 })).records.map((record) => [record.offset, record.key])).toEqual([
      [2, 'k1'],
      [3, 'k2'],
      [4, 'k3'],
    ])

    await t.cluster.deleteTopicConfigs('kv', ['cleanup.policy'])
    await t.cluster.produce('kv', { partition: 0, idempotent: false, records: [{ key: 'k3', value: 'b' }] })
    expect((await compactEveryReplica(t)).map((outcome) => outcome.kind)).toEqual(['nothing-to-clean', 'nothing-to-clean', 'nothing-to-clean'])
  })

  it('a log setting the logs refuse is refused whole and changes nothing', async () => {
    t = await openTestCluster()
    await t.cluster.createTopic({ name: 'kv', partitions: 1, configs: { 'segment.bytes': '100' } })
    await expect(t.cluster.updateTopicConfigs('kv', { set: { 'cleanup.policy': 'compact', 'segment.bytes': '3' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    expect((await t.cluster.describeTopic('kv')).configs).toEqual({ 'segment.bytes': '100' })
    await putAll(t)
    expect((await compactEveryReplica(t)).map((outcome) => outcome.kind)).toEqual(['nothing-to-clean', 'nothing-to-clean', 'nothing-to-clean'])
  })
})
