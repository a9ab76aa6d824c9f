import 'server-only'
import { healRottenByte, type RottenByte } from '@/server/cluster/embedded/bit-rot'
import { createClusterPair, expectThat, target, waitForCaughtUp, type ScenarioDefinition } from './scenario'

/**
 * Rehearse before you need it: a drill fails over a copy of the destination while the mirror keeps mirroring,
 * then a disk rots one byte on the destination, a verification names its offset, and the healed byte verifies
 * identical again. Nothing of the mirror is touched by the drill or the verification.
 */

const TOPIC = 'orders'
const PARTITIONS = 3

function orders(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({ key: `customer-${(from + i) % 11}`, value: JSON.stringify({ order: from + i, total: ((from + i) * 37) % 500 }) }))
}

export const rehearseBeforeYouNeedIt: ScenarioDefinition = {
  name: 'rehearse-before-you-need-it',
  title: 'Rehearse before you need it',
  description:
    'A drill fails over a copy of the destination while the mirror keeps mirroring: real ABORT markers and PID reset on the copy, checks, RTO and RPO. Then one byte rots on the destination disk; a byte-for-byte verification names its offset; healed, the mirror verifies identical.',
  prefix: 'drill',
  topic: TOPIC,
  steps: [
    { title: 'Mirror orders, one transaction left open', intro: 'Two clusters, an orders topic of 3 partitions and a transaction that has not committed yet, all mirrored.' },
    { title: 'Rehearse the failover', intro: 'A drill copies the destination into a sandbox, fails the copy over for real and checks it; the mirror keeps mirroring.' },
    { title: 'A disk rots one byte', intro: "One byte of a record's value flips on the destination leader's disk. Reads still answer; nothing notices." },
    { title: 'Verify finds it', intro: 'Source and destination are compared batch by batch, bytes and CRCs.' },
    { title: 'Heal and verify again', intro: 'The byte is put back; the comparison runs again.' },
  ],
  plan(context) {
    const { sourceCluster, destinationCluster, mirror } = context.names
    const source = () => context.clusters.embedded(sourceCluster)
    const mirrorPage = target({ mirror, cluster: destinationCluster, topic: TOPIC })
    let rot: (RottenByte & { broker: number }) | null = null
    const verify = async () => {
      const started = await context.verifier.start(mirror, { topics: [TOPIC], requestedBy: { actor: 'demo scenario', role: 'operator' } })
      return context.verifier.settled(started.id)
    }
    return {
      steps: [
        async () => {
          await createClusterPair(context)
          await source().createTopic({ name: TOPIC, partitions: PARTITIONS, replicationFactor: 3 })
          await source().produce(TOPIC, { records: orders(0, 45) })
          const open = await source().createTransactionalProducer(`${mirror}-checkout`, { transactionTimeoutMs: 15 * 60_000 })
          await open.send(TOPIC, { partition: 1, records: orders(45, 2) })
          await context.engine.createMirror({ name: mirror, sourceCluster, destinationCluster, topics: [TOPIC] })
          const total = await waitForCaughtUp(context, mirror, sourceCluster, TOPIC)
          return { narration: `Mirror ${mirror} is MIRRORING all ${PARTITIONS} partitions (${total} records); producer ${open.producerId}'s transaction on ${TOPIC}-1 is still open.`, target: mirrorPage }
        },
        async () => {
          const started = await context.drills.start(mirror, { requestedBy: { actor: 'demo scenario', role: 'operator' } })
          const drill = await context.drills.settled(started.id)
          const failed = drill.checks.filter((check) => !check.ok)
          expectThat(drill.status === 'succeeded', `the drill ${drill.status}: ${drill.error ?? failed.map((check) => check.detail).join('; ')}`)
          const aborted = drill.partitions.flatMap((p) => p.markers.filter((m) => m.type === 'ABORT').map((m) => `${p.topic}-${p.partition} at ${m.offset}`))
          const stillMirroring = context.engine.partitions(mirror).every((p) => p.state === 'MIRRORING')
          expectThat(stillMirroring, 'a partition of the mirror left MIRRORING during the drill')
          return {
            narration: `Drill ${drill.id} failed over a copy in ${drill.rtoMs} ms (RTO): ABORT ${aborted.join(', ') || 'none'}, then a MIRROR_PID_RESET per partition; ${drill.checks.length} of ${drill.checks.length} checks passed and its sandbox is gone. ${mirror} never left MIRRORING.`,
            target: { ...mirrorPage, drill: drill.id },
          }
        },
        async () => {
          rot = await context.clusters.embedded(destinationCluster).rotOneByte({ topic: TOPIC, partition: 0 })
          const read = await context.clusters.embedded(destinationCluster).readRecords(TOPIC, 0, { fromOffset: rot.offset, limit: 1 })
          return {
            narration: `Broker ${rot.broker} of ${destinationCluster} now holds a flipped byte in the value at ${TOPIC}-0 offset ${rot.offset}. A consumer still reads it, wrongly: ${read.records[0]?.value ?? '?'}.`,
            target: target({ mirror, cluster: destinationCluster, topic: TOPIC, partition: 0 }),
          }
        },
        async () => {
          expectThat(rot !== null, 'no byte was rotted')
          const found = await verify()
          const partition = found.partitions.find((p) => p.partition === 0)
          const named = partition?.mismatches.find((m) => m.offset === rot!.offset)
          expectThat(found.status === 'mismatched' && named !== undefined, `the verification did not name offset ${rot.offset} (${found.status})`)
          return {
            narration: `Verification ${found.id}: ${partition!.summary}. ${partition!.mismatches.map((m) => `${m.kind} at ${m.offset}`).join(', ')} — ${named.detail}`,
            target: target({ mirror, cluster: destinationCluster, topic: TOPIC, partition: 0, verification: found.id }),
          }
        },
        async () => {
          expectThat(rot !== null && (await healRottenByte(rot)), 'the rotten byte could not be put back')
          rot = null
          const again = await verify()
          expectThat(again.status === 'passed', `the second verification ${again.status}`)
          return { narration: `The byte is back. Verification ${again.id}: all ${again.totals.partitions} partitions identical.`, target: { ...mirrorPage, verification: again.id } }
        },
      ],
      cleanup: async () => {
        if (rot !== null) await healRottenByte(rot).catch(() => false)
      },
    }
  },
}
