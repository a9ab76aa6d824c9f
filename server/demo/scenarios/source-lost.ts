import 'server-only'
import { createClusterPair, expectThat, target, waitForCaughtUp, waitForPartitions, type ScenarioDefinition, waitForOperation } from './scenario'

/** A disaster: the source region is cut off, its partitions go FAILED, and the operator fails over from FAILED. */

const TOPIC = 'payments'
const PARTITIONS = 3

function payments(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({ key: `account-${(from + i) % 7}`, value: JSON.stringify({ payment: from + i }) }))
}

export const sourceLost: ScenarioDefinition = {
  name: 'source-lost',
  title: 'The source is lost',
  description:
    'The link to the source region goes down while payments are being written. Fetches fail, the partitions go FAILED and retry with backoff; the operator fails over from FAILED, accepting the records that never arrived.',
  prefix: 'lost',
  topic: TOPIC,
  steps: [
    { title: 'Mirror payments between two clusters', intro: 'Two clusters, a payments topic of 3 partitions written by an idempotent producer, and a mirror that catches up.' },
    { title: 'Cut the source off', intro: 'The source keeps taking payments, but no mirror fetch reaches it any more.' },
    { title: 'Preview the failover', intro: 'The plan cannot ask the source what is at risk: the source is unreachable.' },
    { title: 'Fail over from FAILED', intro: 'STOPPING is accepted for FAILED partitions: in a real disaster the source is gone.' },
    { title: 'The link comes back', intro: 'What the old source wrote after the cut is now only on the old source.' },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const source = () => context.clusters.embedded(sourceCluster)
    const mirrorPage = target({ mirror, cluster: destinationCluster, topic: TOPIC })
    return {
      steps: [
        async () => {
          await createClusterPair(context)
          await source().createTopic({ name: TOPIC, partitions: PARTITIONS, replicationFactor: 3 })
          await source().produce(TOPIC, { records: payments(0, 30) })
          await context.engine.createMirror({ name: mirror, sourceCluster, destinationCluster, topics: [TOPIC] })
          const total = await waitForCaughtUp(context, mirror, sourceCluster, TOPIC)
          return { narration: `Mirror ${mirror} is MIRRORING all ${PARTITIONS} partitions and holds all ${total} payments.`, target: mirrorPage }
        },
        async () => {
          context.links.cutOff(sourceCluster)
          await source().produce(TOPIC, { records: payments(30, 12) })
          const failed = await waitForPartitions(context, mirror, 'every partition to go FAILED', (p) => p.state === 'FAILED' && p.retryAttempt >= 1)
          return {
            narration: `12 more payments were written at ${sourceCluster} after the cut. All ${failed.length} partitions went MIRRORING → FAILED (${failed[0]!.error}) and retry with backoff.`,
            target: mirrorPage,
          }
        },
        async () => {
          const plan = await context.engine.failoverPlan(mirror)
          const gate = plan.gates.find((g) => g.name === 'source-reachable')
          expectThat(gate !== undefined && !gate.ok, 'expected the source-reachable gate to report the source down')
          expectThat(plan.canProceed, `the failover plan refuses: ${plan.gates.filter((g) => !g.ok).map((g) => g.detail).join('; ')}`)
          const mirrored = plan.partitions.reduce((sum, p) => sum + p.mirroredOffset, 0)
          return {
            narration: `Gate source-reachable: ${gate.detail}. Records at risk are unknown (the source cannot be asked); the destination holds ${mirrored} payments.`,
            target: mirrorPage,
          }
        },
        async () => {
          const { operation } = await context.engine.failover(mirror, { confirm: mirror })
          const finished = await waitForOperation(context, operation.id)
          expectThat(finished.status === 'succeeded', `the failover ${finished.status}`)
          const written = await context.clusters.embedded(destinationCluster).produce(TOPIC, { records: payments(1000, 1) })
          return {
            narration: `FAILED → STOPPING → STOPPED on every partition. ${destinationCluster} is the primary now: a new payment landed at ${TOPIC}-${written.records[0]!.partition} offset ${written.records[0]!.offset}.`,
            target: { ...mirrorPage, operation: operation.id },
          }
        },
        async () => {
          context.links.heal(sourceCluster)
          const plan = await context.engine.planStart({ sourceCluster: destinationCluster, destinationCluster: sourceCluster, topics: [TOPIC] })
          const removed = plan.partitions.reduce((sum, p) => sum + p.recordsToRemove, 0)
          expectThat(removed === 12, `expected a failback to remove the 12 payments written after the cut, it would remove ${removed}`)
          return {
            narration: `A failback (mirror ${destinationCluster} → ${sourceCluster}) would truncate ${removed} records on ${sourceCluster}: the payments written after the cut, which never reached ${destinationCluster}.`,
            target: target({ cluster: sourceCluster, topic: TOPIC }),
          }
        },
      ],
    }
  },
}
