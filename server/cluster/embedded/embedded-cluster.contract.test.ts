import { describeMirrorHostContract } from '../contract/mirror-host.contract'
import { describeSourceClusterContract } from '../contract/source-cluster.contract'
import type { ContractClient, ContractFactory } from '../contract/contract'
import { ClusterError } from '../errors'
import type { EmbeddedCluster } from './embedded-cluster'
import { openTestCluster } from './testing'

/** The client side of the contract, with the embedded cluster's own client API and fault injection. */
function clientOf(cluster: () => EmbeddedCluster): ContractClient {
  return {
    async createTopic(name, options) {
      await cluster().createTopic({ name, partitions: options.partitions, configs: options.configs })
    },
    async produce(tp, records) {
      await cluster().produce(tp.topic, { partition: tp.partition, records })
    },
    async transactionalProducer(transactionalId) {
      const producer = await cluster().createTransactionalProducer(transactionalId)
      return {
        producerId: producer.producerId,
        send: async (tp, records) => void (await producer.send(tp.topic, { partition: tp.partition, records })),
        commit: async () => void (await producer.commit()),
        abort: async () => void (await producer.abort()),
      }
    },
    async deleteRecords(tp, beforeOffset) {
      await cluster().deleteRecords(tp, beforeOffset)
    },
    async commitGroupOffset(groupId, tp, offset) {
      await cluster().commitOffsets(groupId, [{ ...tp, offset }])
    },
    async joinGroup(groupId) {
      const memberId = await cluster().joinGroup(groupId)
      return { leave: () => cluster().leaveGroup(groupId, memberId) }
    },
    async electAnotherLeader(tp) {
      const { leader, isr } = await cluster().describePartition(tp)
      const other = isr.find((broker) => broker !== leader)
      if (other === undefined) throw new ClusterError('CONFLICT', `${tp.topic}-${tp.partition} has no other in-sync replica`)
      await cluster().electLeader(tp, other)
    },
    async electLaggingReplicaUncleanly(tp, lostRecords) {
      await cluster().electLaggingReplicaUncleanly(tp, lostRecords)
    },
  }
}

/** Two brokers each: enough for elections and for a lagging replica, and cheap to open. */
const embedded: ContractFactory = {
  name: 'embedded cluster',
  deviations: {},
  async open() {
    const source = await openTestCluster({ name: 'contract-source', brokers: 2 })
    const destination = await openTestCluster({ name: 'contract-destination', brokers: 2 })
    return {
      source: source.cluster,
      sourceClient: clientOf(() => source.cluster),
      host: destination.cluster,
      hostClient: clientOf(() => destination.cluster),
      hostAsSource: destination.cluster,
      close: async () => {
        await source.cleanup()
        await destination.cleanup()
      },
    }
  },
}

describeSourceClusterContract(embedded)
describeMirrorHostContract(embedded)
