import { afterEach, expect, it } from 'vitest'
import { createEngineHarness, type EngineHarness } from './testing/harness'

/**
 * A mirror's objectives over time (issue #34): each minute's recovery point is archived and judged against the RPO
 * objective (breached while the mirror is behind, met once caught up), the compliance survives a restart, and a
 * failover's measured RTO is held against the RTO objective.
 */
let harness: EngineHarness
afterEach(async () => harness?.cleanup())

it('keeps each minute of the recovery point, judges it against the RPO objective, durably, and holds the failover to the RTO objective', async () => {
  harness = await createEngineHarness({ clusters: { a: { brokers: 1 }, b: { brokers: 1 } }, archiveLag: true })
  const a = harness.cluster('a')
  await a.createTopic({ name: 't', partitions: 1, replicationFactor: 1 })
  for (let i = 0; i < 40; i++) await a.produce('t', { partition: 0, records: [{ value: `record ${i}` }] })
  // One batch per fetch keeps the mirror behind (over 5 records) for a few minutes.
  await harness.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'fetch.max.bytes': 1, objectives: { rpoRecords: 5, rtoSeconds: 3600 } } })
  await harness.run(12, 20_000)
  await harness.run(40, 20_000)
  expect(harness.engine.partitions('m')[0]!.offsetLag).toBe(0)

  const view = await harness.engine.objectivesOf('m')
  expect(view.objectives).toEqual({ rpoRecords: 5, rtoSeconds: 3600 })
  expect(view.current).toMatchObject({ records: 0, status: 'met' })
  const day = view.rpoCompliance!.last24h
  expect(day.breached).toBeGreaterThan(0)
  expect(day.met).toBeGreaterThan(0)
  expect(day.met + day.breached + day.unknown).toBeGreaterThanOrEqual(15)
  expect(day.metShare).toBeCloseTo(day.met / (day.met + day.breached + day.unknown))
  expect(view.rpoCompliance!.days.at(-1)!.met + view.rpoCompliance!.days.at(-2)!.met).toBe(view.rpoCompliance!.last30d.met)

  await harness.restart()
  // Durable: the minutes come back from the archive (the last append may still be in flight at the restart).
  const restored = (await harness.engine.objectivesOf('m')).rpoCompliance!.last24h
  expect(restored.breached).toBeGreaterThan(0)
  expect(restored.met).toBeGreaterThan(0)

  const { operation } = await harness.engine.failover('m', { confirm: 'm' })
  for (let i = 0; i < 200 && harness.engine.getOperation(operation.id).status === 'running'; i++) {
    await harness.run(1, 100)
    // The operation writes to disk in real time while the clock is manual.
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await harness.engine.awaitOperation(operation.id)
  const after = await harness.engine.objectivesOf('m')
  expect(after.rto).toEqual([{ operation: operation.id, type: 'unplanned', startedAt: expect.any(Number), rtoMs: expect.any(Number), met: true }])
})
