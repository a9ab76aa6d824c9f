import 'server-only'
import { isClusterError } from '@/server/cluster/errors'
import { createClusterPair, expectThat, target, waitFor, type ScenarioDefinition, waitForOperation } from './scenario'

/**
 * A planned switchover under load (issue #34): the producer never stops; the switchover fences the source
 * (its writes are refused with TOPIC_WRITE_FENCED), drains the mirror to lag 0, stops, and loses nothing —
 * measured, not assumed.
 */

const TOPIC = 'orders'
const PARTITIONS = 2
const WRITE_INTERVAL_MS = 100

export const plannedSwitchover: ScenarioDefinition = {
  name: 'planned-switchover',
  title: 'Planned switchover under load',
  description:
    'Moves the primary to the other region on purpose while a producer keeps writing: the source is fenced, the mirror drains to zero lag, STOPPING runs, and the switchover measures what it lost: nothing.',
  prefix: 'switchover',
  topic: TOPIC,
  steps: [
    { title: 'Mirror a live topic', intro: 'Two clusters, an orders topic of 2 partitions, a mirror, and a producer writing every 100 ms that will not stop.' },
    { title: 'Preview: planned', intro: 'The planned switchover says how the source will be fenced and how long it may drain; nothing is at risk of being lost.' },
    { title: 'Switch over under load', intro: 'Fence, drain, STOPPING: the producer is refused with TOPIC_WRITE_FENCED from the fence on; the destination catches up to the last acknowledged record.' },
    { title: 'Zero lost, measured', intro: 'Records lost is read at STOPPED (the fenced source against each partition\'s mirrored offset); the writes go to the new primary.' },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const source = () => context.clusters.embedded(sourceCluster)
    const mirrorPage = target({ mirror, cluster: destinationCluster, topic: TOPIC })
    let writer: Promise<void> | null = null
    let writing = false
    let acknowledged = 0
    let refused = 0
    const write = async () => {
      while (writing && !context.signal.aborted) {
        try {
          await source().produce(TOPIC, { records: [{ key: `order-${acknowledged % 11}`, value: JSON.stringify({ order: acknowledged }) }] })
          acknowledged += 1
        } catch (error) {
          if (!isClusterError(error, 'TOPIC_WRITE_FENCED')) throw error
          refused += 1
        }
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
          await waitFor(context, 'the producer to write 20 orders while mirroring runs', () => (acknowledged >= 20 && context.engine.partitions(mirror).every((p) => p.state === 'MIRRORING') ? true : undefined))
          return { narration: `Mirror ${mirror} is MIRRORING while a producer writes an order every ${WRITE_INTERVAL_MS} ms (${acknowledged} so far).`, target: mirrorPage }
        },
        async () => {
          const plan = await context.engine.switchoverPlan(mirror, {})
          expectThat(plan.fenceMethod === 'broker', `expected the embedded source to fence by its broker, got ${plan.fenceMethod}`)
          return {
            narration: `Planned: ${sourceCluster} will refuse writes to ${TOPIC} (TOPIC_WRITE_FENCED), the mirror may take ${plan.drainTimeoutMs / 1000} s to drain before the switchover rolls back, and open transactions get ${plan.transactionGraceMs / 1000} s.`,
            target: mirrorPage,
          }
        },
        async () => {
          const { operation } = await context.engine.switchover(mirror, { confirm: mirror })
          const finished = await waitForOperation(context, operation.id)
          expectThat(finished.status === 'succeeded', `the switchover ${finished.status}${finished.switchover?.reason ? `: ${finished.switchover.reason}` : ''}`)
          const s = finished.switchover!
          const refusedMs = (s.stoppedAt ?? 0) - (s.fencedAt ?? 0)
          return {
            narration: `Fenced, drained in ${(((s.drainedAt ?? 0) - (s.drainStartedAt ?? 0)) / 1000).toFixed(1)} s, STOPPED: writes were refused for ${(refusedMs / 1000).toFixed(1)} s (${refused} refused so far, every one told TOPIC_WRITE_FENCED).`,
            target: { ...mirrorPage, operation: operation.id },
          }
        },
        async () => {
          writing = false
          await writer
          const [operation] = context.engine.listOperations({ mirror, limit: 1 })
          const lost = operation?.switchover?.recordsLost?.total
          expectThat(lost === 0, `expected 0 records lost, measured ${String(lost)}`)
          const next = await context.clusters.embedded(destinationCluster).produce(TOPIC, { records: [{ key: 'order-0', value: JSON.stringify({ order: acknowledged }) }] })
          return {
            narration: `Records lost: 0 of ${acknowledged} acknowledged. ${destinationCluster} is the primary: the next order went to ${TOPIC}-${next.records[0]!.partition} at offset ${next.records[0]!.offset}; ${sourceCluster} stays fenced until a failback.`,
            target: mirrorPage,
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
