import { afterEach, describe, expect, it } from 'vitest'
import { SplitBrain } from '@/lib/api/split-brain'
import { renderPrometheus } from '@/server/observability/metrics'
import { SplitBrainWatch } from './split-brain-watch'
import { createEngineHarness, type EngineHarness } from '../testing/harness'
import { WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC, mirrorOffsets0To2ThenPause } from '../testing/worked-example'

let harness: EngineHarness
afterEach(async () => harness?.cleanup())

const ALICE = { actor: 'user:alice@example.com', actorName: 'Alice Example <alice@example.com>', role: 'operator' as const }

async function failedOver(requestedBy?: typeof ALICE): Promise<SplitBrainWatch> {
  harness = await createEngineHarness({ clusters: WORKED_EXAMPLE_CLUSTERS })
  await mirrorOffsets0To2ThenPause(harness)
  const { operation } = await harness.engine.failover('dr', { confirm: 'dr', force: ['lag-threshold'], ...(requestedBy === undefined ? {} : { requestedBy }) })
  await harness.run(5)
  await harness.engine.awaitOperation(operation.id)
  return new SplitBrainWatch(harness.engine, { source: (name) => harness.clusters.get(name), now: () => harness.clock.now() })
}

describe('the split-brain watch', () => {
  it('counts nothing right after the failover: the records at risk were written before it', async () => {
    const watch = await failedOver()
    await watch.check()
    expect(SplitBrain.parse(watch.forMirror('dr'))).toMatchObject({ oldSourceCluster: 'a', watchedPartitions: 1, recordsWritten: 0, topics: [], sourceReachable: true })
  })

  it('names the failover that stopped the mirror and the person who confirmed it', async () => {
    const watch = await failedOver(ALICE)
    await watch.check()
    const [operation] = harness.engine.listOperations({ mirror: 'dr' })
    const summary = SplitBrain.parse(watch.forMirror('dr'))
    expect(summary.failover).toEqual({ operationId: operation?.id, kind: 'failover', startedAt: operation?.startedAt, requestedBy: ALICE })
  })

  it('counts records producers still write to the old source, per topic, with the newest time, and as a gauge', async () => {
    const watch = await failedOver()
    await watch.check()
    const writtenAt = harness.clock.now()
    await harness.cluster('a').produce(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ value: 'late-1' }, { value: 'late-2' }] })
    await watch.check()
    const summary = watch.forMirror('dr')
    expect(summary).toMatchObject({ recordsWritten: 2, topics: [{ topic: WORKED_EXAMPLE_TOPIC, recordsWritten: 2, partitionsWritten: 1 }] })
    expect(summary?.latestWriteAt).toBeGreaterThanOrEqual(writtenAt)
    const text = await renderPrometheus(watch.metrics())
    expect(text).toContain(`mirrorboard_split_brain_records{mirror="dr",topic="${WORKED_EXAMPLE_TOPIC}"} 2`)
    expect(text).toContain('mirrorboard_split_brain_latest_write_timestamp_seconds{mirror="dr"')
    expect(text).toContain('mirrorboard_mirror_split_brain{mirror="dr"} 1')
  })

  it('stops watching once a failback mirror rewrites the old source, and for mirrors without STOPPED partitions', async () => {
    const watch = await failedOver()
    await harness.cluster('a').produce(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ value: 'late' }] })
    await watch.check()
    expect(watch.forMirror('dr')?.recordsWritten).toBe(1)
    await harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    await harness.run(5)
    await watch.check()
    expect(watch.forMirror('dr')).toBeNull()
    expect(watch.forMirror('back')).toBeNull()
  })

  it('names the producers that still write: producer id, epoch and the transactional id the old source knows', async () => {
    const watch = await failedOver()
    const stray = await harness.cluster('a').createTransactionalProducer('billing-still-on-a')
    await stray.send(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ value: 'late' }] })
    await stray.commit()
    await harness.run(2)
    await watch.check()
    const summary = SplitBrain.parse(watch.forMirror('dr'))
    // One data record counted; its COMMIT marker is not a record a producer wrote.
    expect(summary).toMatchObject({ recordsWritten: 1, producers: [{ producerId: stray.producerId, producerEpoch: stray.producerEpoch, transactionalId: 'billing-still-on-a', records: 1, topics: [WORKED_EXAMPLE_TOPIC] }] })
    expect(summary.ownRecordsIgnored).toBe(1)
  })

  it('raises nothing over a round trip: failover, failback, failover of the failback (its markers and PID reset on the old source)', async () => {
    const watch = await failedOver()
    await watch.check()
    await harness.engine.createMirror({ name: 'back', sourceCluster: 'b', destinationCluster: 'a', topics: [WORKED_EXAMPLE_TOPIC] })
    await harness.run(5)
    expect(harness.engine.partitions('back')[0]?.state).toBe('MIRRORING')
    await watch.check()
    expect(watch.forMirror('dr')).toBeNull()
    const { operation } = await harness.engine.failover('back', { confirm: 'back' })
    await harness.run(5)
    await harness.engine.awaitOperation(operation.id)
    expect(harness.engine.partitions('back')[0]?.state).toBe('STOPPED')
    await watch.check()
    // dr's old source (a) is the active cluster again: its guard retired. back's old source (b) took nothing.
    expect(watch.forMirror('dr')).toBeNull()
    expect(watch.forMirror('back')).toMatchObject({ oldSourceCluster: 'b', recordsWritten: 0 })
    // Producers back on a are where they belong; a write to b now is the accident.
    await harness.cluster('a').produce(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ value: 'home again' }] })
    await harness.cluster('b').produce(WORKED_EXAMPLE_TOPIC, { partition: 0, records: [{ value: 'stray' }] })
    await harness.run(2)
    await watch.check()
    expect(watch.forMirror('dr')).toBeNull()
    expect(watch.forMirror('back')).toMatchObject({ recordsWritten: 1 })
  })
})
