// `npm run bench -- compaction` (also part of `-- storage`): restart time of a cluster whose __mirror_state saw
// one million state writes, before and after compaction, measured in the same run on the same disk; plus how
// long the cleaner took and the longest event-loop stall while it ran.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { MIRROR_STATE_TOPIC } from '@/lib/mirror/constants'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { processLogCleaner } from '@/server/storage/cleaner/log-cleaner'
import type { BenchResult } from './result'

const PARTITIONS = 10_000
const WRITES = 1_000_000
/** Entries per appendMirrorState call: the engine's state store groups concurrent writes about like this. */
const WRITES_PER_APPEND = 1_000
const BROKERS = 1

function stateValue(partition: number, write: number): string {
  return JSON.stringify({
    state: write % 7 === 0 ? 'PREPARING' : 'MIRRORING',
    stateEpoch: write,
    prevState: 'PREPARING',
    retryAttempt: 0,
    error: null,
    updatedAt: 1_767_000_000_000 + write,
    lastMirrorPosition: { leaderEpoch: 3, offset: partition * 1_000 + write },
  })
}

function directoryBytes(dir: string): number {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    total += entry.isDirectory() ? directoryBytes(full) : fs.statSync(full).size
  }
  return total
}

/** Opens the cluster and replays __mirror_state into the latest value per key, as the engine does on start. */
async function restart(dir: string): Promise<{ ms: number; recordsRead: number; keys: number; cluster: EmbeddedCluster }> {
  const start = performance.now()
  const cluster = await EmbeddedCluster.open(dir, { name: 'bench', brokers: BROKERS })
  const records = await cluster.readMirrorState()
  const latest = new Map<string, string | null>()
  for (const { key, value } of records) latest.set(key, value)
  return { ms: performance.now() - start, recordsRead: records.length, keys: latest.size, cluster }
}

export async function benchStorageCompaction(): Promise<BenchResult[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compaction-'))
  // The background cleaner would compact while the writes go on; the "before" figure is of an uncleaned log.
  processLogCleaner.stop()
  try {
    const writer = await EmbeddedCluster.open(root, { name: 'bench', brokers: BROKERS })
    let write = 0
    while (write < WRITES) {
      const entries = Array.from({ length: WRITES_PER_APPEND }, (_, i) => {
        const n = write + i
        const partition = n % PARTITIONS
        return { key: `mirror-a\u0000orders-${Math.floor(partition / 100)}\u0000${partition % 100}`, value: stateValue(partition, Math.floor(n / PARTITIONS)) }
      })
      await writer.appendMirrorState(entries)
      write += entries.length
    }
    await writer.close()
    const bytesBefore = directoryBytes(root)

    const before = await restart(root)
    const log = before.cluster.replicaLog({ topic: MIRROR_STATE_TOPIC, partition: 0 }, 1)
    if (!log) throw new Error('__mirror_state has no replica on broker 1')
    let longestStallMs = 0
    let last = performance.now()
    const probe = setInterval(() => {
      const now = performance.now()
      longestStallMs = Math.max(longestStallMs, now - last)
      last = now
    }, 1)
    const cleanStart = performance.now()
    const outcome = await log.compact()
    const cleanMs = performance.now() - cleanStart
    clearInterval(probe)
    await before.cluster.close()
    if (outcome.kind !== 'cleaned') throw new Error(`compaction did not run: ${JSON.stringify(outcome)}`)
    const bytesAfter = directoryBytes(root)

    const after = await restart(root)
    await after.cluster.close()
    if (after.keys !== before.keys) throw new Error(`compaction changed the state: ${before.keys} keys before, ${after.keys} after`)

    return [
      { name: `restart, __mirror_state of ${WRITES.toLocaleString('en-US')} writes`, value: before.ms, unit: 'ms' },
      { name: '  records replayed', value: before.recordsRead, unit: 'records' },
      { name: 'restart after compaction', value: after.ms, unit: 'ms', baseline: { name: 'before', value: before.ms }, ratio: after.ms / before.ms, goal: 'well below 1' },
      { name: '  records replayed', value: after.recordsRead, unit: 'records' },
      { name: '  partitions restored (same before and after)', value: after.keys, unit: 'keys' },
      { name: 'compaction pass', value: cleanMs, unit: 'ms' },
      { name: '  longest event-loop stall during the pass', value: longestStallMs, unit: 'ms', goal: '< 100 ms' },
      { name: 'data directory', value: bytesAfter / (1 << 20), unit: 'MiB', baseline: { name: 'before', value: bytesBefore / (1 << 20) }, ratio: bytesAfter / bytesBefore },
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
