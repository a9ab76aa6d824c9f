/**
 * The SourceCluster contract suite (server/cluster/contract/) against the Kafka adapter over the real test
 * brokers (`npx tsx scripts/kafka/clusters.ts start`; `npm test` starts them). The destination side of the
 * fixture is an embedded cluster: the suite exercises the source port only.
 */
import 'server-only'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import type { ContractFactory } from '../contract/contract'
import { describeSourceClusterContract } from '../contract/source-cluster.contract'
import { openTestCluster } from '../embedded/testing'
import { KafkaConnection } from './connection'
import { KafkaSourceCluster } from './kafka-source'
import { kafkajsContractClient } from './testing/kafkajs-contract-client'

const SINGLE_BROKER = 'the test clusters are single-broker KRaft nodes (scripts/kafka/clusters.ts): no other replica can become leader'

const kafka: ContractFactory = {
  name: 'Kafka adapter on a real broker',
  deviations: {
    leaderElection: SINGLE_BROKER,
    uncleanElection: SINGLE_BROKER,
  },
  async open() {
    const { a } = getTestClusters()
    const sourceClient = await kafkajsContractClient(a.bootstrap, 'contract-source-client')
    await sourceClient.forget(['sc-'])
    const connection = await KafkaConnection.open({ bootstrapServers: [a.bootstrap] }, 'contract-source')
    const source = new KafkaSourceCluster('kafka-a', connection)
    const destination = await openTestCluster({ name: 'contract-destination', brokers: 1 })
    const embedded = destination.cluster
    return {
      source,
      sourceClient,
      host: embedded,
      hostClient: sourceClient,
      hostAsSource: embedded,
      close: async () => {
        await connection.close()
        await sourceClient.close()
        await destination.cleanup()
      },
    }
  },
}

describeSourceClusterContract(kafka)
