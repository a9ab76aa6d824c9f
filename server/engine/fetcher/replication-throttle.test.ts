import { afterEach, describe, expect, it } from 'vitest'
import { createEngineHarness, type EngineHarness } from '../testing/harness'

/**
 * Replication throttling (KIP-1279.md §7.1 `mirror.replication.throttled.rate`, §7.2
 * `mirror.replication.throttled.replicas`), measured over the bytes the engine mirrored on the harness's
 * manual clock: the rate is simulated time, so the check is exact arithmetic, not a timed race.
 */

const RATE = 20_000
const RECORD = 'x'.repeat(200)

let harness: EngineHarness | undefined
afterEach(async () => {
  await harness?.cleanup()
  harness = undefined
})

/** Two partitions with ~110 KB each at the source, in batches of five 200-byte records. */
async function backlog(): Promise<EngineHarness> {
  const h = (harness = await createEngineHarness({ clusters: { a: {}, b: {} } }))
  const a = h.cluster('a')
  await a.createTopic({ name: 't', partitions: 2, replicationFactor: 1 })
  for (let batch = 0; batch < 100; batch++) {
    for (const partition of [0, 1]) await a.produce('t', { partition, records: Array.from({ length: 5 }, () => ({ value: RECORD })) })
  }
  return h
}

async function untilMirroring(h: EngineHarness): Promise<void> {
  for (let i = 0; i < 20 && !h.engine.partitions('m').every((partition) => partition.state === 'MIRRORING'); i++) await h.run(1)
  expect(h.engine.partitions('m').map((partition) => partition.state)).toEqual(['MIRRORING', 'MIRRORING'])
}

describe('replication throttling', () => {
  it('holds the fetch rate of the throttled partitions within 10 % of mirror.replication.throttled.rate, and says so', async () => {
    const h = await backlog()
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'], config: { 'mirror.replication.throttled.rate': RATE } })
    await untilMirroring(h)
    // The first second spends the bucket's burst; the rate is measured over the next eight.
    await h.run(10, 100)
    const from = h.engine.mirrorSummary('m').mirroredBytes
    await h.run(80, 100)
    const bytesPerSecond = (h.engine.mirrorSummary('m').mirroredBytes - from) / 8
    expect(bytesPerSecond).toBeGreaterThan(RATE * 0.9)
    expect(bytesPerSecond).toBeLessThan(RATE * 1.1)
    expect(h.engine.mirrorSummary('m')).toMatchObject({ throttled: true, throttledRate: RATE })
    // The backlog is far from mirrored: ~220 KB at the source, ~200 KB at most after ten seconds at the rate.
    expect(h.engine.partitions('m').every((partition) => (partition.offsetLag ?? 0) > 0)).toBe(true)
  })

  it('throttles only the listed partitions, and a PATCH lifts the throttle at the next round', async () => {
    const h = await backlog()
    await h.engine.createMirror({
      name: 'm',
      sourceCluster: 'a',
      destinationCluster: 'b',
      topics: ['t'],
      config: { 'mirror.replication.throttled.rate': RATE, 'mirror.replication.throttled.replicas': ['t:0'] },
    })
    await untilMirroring(h)
    await h.run(20, 100)
    const [throttled, free] = h.engine.partitions('m')
    expect(free).toMatchObject({ partition: 1, offsetLag: 0, destinationLogEndOffset: 500 })
    expect(throttled!.offsetLag).toBeGreaterThan(0)
    expect(h.engine.mirrorSummary('m')).toMatchObject({ throttled: true, throttledRate: RATE })

    await h.engine.updateMirrorConfig('m', { 'mirror.replication.throttled.rate': 0 })
    await h.run(5, 100)
    expect(h.engine.partitions('m').map((partition) => [partition.offsetLag, partition.destinationLogEndOffset])).toEqual([
      [0, 500],
      [0, 500],
    ])
    expect(h.engine.mirrorSummary('m')).toMatchObject({ throttled: false, throttledRate: null })
  })

  it('refuses a negative rate and malformed replica entries, and changes nothing', async () => {
    const h = await backlog()
    await h.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['t'] })
    await expect(h.engine.updateMirrorConfig('m', { 'mirror.replication.throttled.rate': -1 })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    await expect(h.engine.updateMirrorConfig('m', { 'mirror.replication.throttled.replicas': ['t:one'] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(h.engine.getMirror('m').config).toMatchObject({ 'mirror.replication.throttled.rate': 0, 'mirror.replication.throttled.replicas': ['*'] })
  })
})
