import 'server-only'
import { createClusterPair, expectThat, target, waitFor, waitForCaughtUp, type ScenarioDefinition, waitForOperation } from './scenario'

/** A planned move of the primary: stop the writers, let the mirror drain to zero lag, fail over with nothing at risk. */

const TOPIC = 'orders'
const PARTITIONS = 2
const WRITE_INTERVAL_MS = 100

export const plannedSwitchover: ScenarioDefinition = {
  name: 'planned-switchover',
  title: 'Planned switchover',
  description:
    'Moves the primary to the other region on purpose: producers stop first, the mirror drains to zero lag, and the failover then has nothing at risk and no transaction to abort.',
  prefix: 'switchover',
  topic: TOPIC,
  steps: [
    { title: 'Mirror a live topic', intro: 'Two clusters, an orders topic of 2 partitions, a mirror, and a producer writing every 100 ms.' },
    { title: 'Stop the producers', intro: 'Writes to the source end; whatever they wrote is still on its way to the destination.' },
    { title: 'Wait for zero lag', intro: 'The mirror copies the last records; lag falls to 0 on every partition.' },
    { title: 'Preview: nothing at risk', intro: 'The failover plan must show 0 records at risk and no transaction to abort.' },
    { title: 'Switch over', intro: 'STOPPING on every partition; the destination becomes writable with the same offsets.' },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const source = () => context.clusters.embedded(sourceCluster)
    const mirrorPage = target({ mirror, cluster: destinationCluster, topic: TOPIC })
    let writer: Promise<void> | null = null
    let writing = false
    let written = 0
    let maxLag = 0
    const write = async () => {
      while (writing && !context.signal.aborted) {
        await source().produce(TOPIC, { records: [{ key: `order-${written % 11}`, value: JSON.stringify({ order: written }) }] })
        written += 1
        for (const p of context.engine.partitions(mirror)) maxLag = Math.max(maxLag, p.offsetLag ?? 0)
        await new Promise((resolve) => setTimeout(resolve, WRITE_INTERVAL_MS))
      }
    }
    return {
      steps: [
        async () => {
          await createClusterPair(context)
          await source().createTopic({ name: TOPIC, partitions: PARTITIONS, replicationFactor: 3 })
          await context.engine.createMirror({ name: mirror, sourceCluster, destinationCluster, topics: [TOPIC] })
          writing = true
          writer = write()
          await waitFor(context, 'the producer to write 20 orders while mirroring runs', () => (written >= 20 && context.engine.partitions(mirror).every((p) => p.state === 'MIRRORING') ? true : undefined))
          return { narration: `Mirror ${mirror} is MIRRORING while a producer writes an order every ${WRITE_INTERVAL_MS} ms (${written} so far; lag up to ${maxLag}).`, target: mirrorPage }
        },
        async () => {
          writing = false
          await writer
          const end = (await source().describeTopic(TOPIC)).partitions.reduce((sum, p) => sum + p.logEndOffset, 0)
          return { narration: `The producer stopped after ${written} orders; the source holds ${end} records.`, target: target({ cluster: sourceCluster, topic: TOPIC }) }
        },
        async () => {
          const total = await waitForCaughtUp(context, mirror, sourceCluster, TOPIC)
          const lags = context.engine.partitions(mirror).map((p) => p.offsetLag)
          return { narration: `Lag is ${lags.join(' and ')} on the ${PARTITIONS} partitions: ${destinationCluster} holds all ${total} records.`, target: mirrorPage }
        },
        async () => {
          const plan = await context.engine.failoverPlan(mirror)
          const atRisk = plan.partitions.reduce((sum, p) => sum + (p.recordsAtRisk ?? 0), 0)
          const aborts = plan.partitions.reduce((sum, p) => sum + p.transactionsToAbort.length, 0)
          expectThat(plan.canProceed && atRisk === 0 && aborts === 0, `expected nothing at risk, got ${atRisk} records at risk and ${aborts} transactions to abort`)
          return { narration: 'Every gate passes: 0 records at risk, no transaction to abort, no partition FAILED.', target: mirrorPage }
        },
        async () => {
          const { operation } = await context.engine.failover(mirror, { confirm: mirror })
          const finished = await waitForOperation(context, operation.id)
          expectThat(finished.status === 'succeeded', `the switchover ${finished.status}`)
          const next = await context.clusters.embedded(destinationCluster).produce(TOPIC, { records: [{ key: 'order-0', value: JSON.stringify({ order: written }) }] })
          return {
            narration: `MIRRORING → STOPPING → STOPPED. ${destinationCluster} is the primary: the next order went to ${TOPIC}-${next.records[0]!.partition} at offset ${next.records[0]!.offset}, continuing the source's offsets.`,
            target: { ...mirrorPage, operation: operation.id },
          }
        },
      ],
      cleanup: async () => {
        writing = false
        await writer?.catch(() => undefined)
      },
    }
  },
}
