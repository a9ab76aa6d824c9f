/**
 * The MirrorHost contract suite (server/cluster/contract/) against the Kafka destination emulation over the
 * real test brokers (`npx tsx scripts/kafka/clusters.ts start`; `npm test` starts them): source cluster a,
 * destination cluster b. Every behaviour a client of a real broker cannot offer is declared with its reason;
 * what the emulation does instead is tested in kafka-destination.integration.test.ts.
 */
import 'server-only'
import { getTestClusters } from '@/scripts/kafka/test-clusters'
import type { ContractFactory } from '../contract/contract'
import { describeMirrorHostContract } from '../contract/mirror-host.contract'
import { KafkaConnection } from './connection'
import { KafkaCluster } from './kafka-cluster'
import { STATE_TOPIC } from './kafka-state-topic'
import { KafkaSourceCluster } from './kafka-source'
import { kafkajsContractClient } from './testing/kafkajs-contract-client'

const SINGLE_BROKER = 'the test clusters are single-broker KRaft nodes (scripts/kafka/clusters.ts): no other replica can become leader'
const CLIENT = 'a Kafka client cannot'

const kafka: ContractFactory = {
  name: 'Kafka destination emulation on a real broker',
  deviations: {
    leaderElection: SINGLE_BROKER,
    uncleanElection: SINGLE_BROKER,
    verbatimAppend: `${CLIENT} append batches at given offsets: records are produced in source order (one produce per source batch), with the broker's own producer ids, epochs and bytes; offsets stay identical only where the source allows it, otherwise they are translated`,
    truncation: `${CLIENT} truncate a log: failback rebuilds the topic (export the divergent tail, delete and recreate it, mirror back from 0)`,
    epochBump: `${CLIENT} raise a partition leader epoch: the epoch the engine bumps is recorded in the mirror state`,
    mirrorPidReset: `${CLIENT} write a MIRROR_PID_RESET control record: it is recorded in the mirror state and labelled`,
    readOnlyEnforcement: "no broker answers TOPIC_READ_ONLY: where the cluster has an authorizer (test cluster b), DENY WRITE and DELETE ACLs for User:* refuse clients that are not super users with TOPIC_AUTHORIZATION_FAILED (kafka-destination.integration.test.ts); a super user's write (this suite's client), or any write without an authorizer, is detected (log end moved without our produce) and fails the partition",
  },
  async open() {
    const { a, b } = getTestClusters()
    const sourceClient = await kafkajsContractClient(a.bootstrap, 'contract-mh-source-client')
    const hostClient = await kafkajsContractClient(b.bootstrap, 'contract-mh-destination-client')
    await sourceClient.forget(['mh-'])
    await hostClient.forget(['mh-', STATE_TOPIC])
    const connection = await KafkaConnection.open({ bootstrapServers: [a.bootstrap] }, 'contract-mh-source')
    const source = new KafkaSourceCluster('kafka-a', connection)
    const destination = await KafkaCluster.open('kafka-b', { bootstrapServers: [b.bootstrap] })
    return {
      source,
      sourceClient,
      host: destination.host,
      hostClient,
      hostAsSource: destination.source,
      close: async () => {
        await destination.close()
        await connection.close()
        await sourceClient.close()
        await hostClient.close()
      },
    }
  },
}

describeMirrorHostContract(kafka)
