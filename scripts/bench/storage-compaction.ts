// `npm run bench -- compaction` (also part of `-- storage` and `-- engine`): restart time of a cluster whose
// __mirror_state saw one million state writes, before and after compaction, measured in the same run on the
// same disk; plus how long the cleaner took and the longest event-loop stall while it ran. The records are the
// engine's own (keys from encodeKey, partition state values as the state store writes them), so the restart
// rebuilds the cluster's mirror state view from them as it does for a real mirror.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { MIRROR_STATE_TOPIC } from '@/lib/mirror/constants'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import { createMirrorPartition } from '@/lib/mirror/partition'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { processLogCleaner } from '@/server/storage/cleaner/log-cleaner'
import type { BenchResult } from './result'

const PARTITIONS = 10_000
const WRITES = 1_000_000
/** Entries per appendMirrorState call: the engine's state store groups concurrent writes about like this. */
const WRITES_PER_APPEND = 1_000
const BROKERS = 1

const MIRROR = 'mirror-a'
const PARTITIONS_PER_TOPIC = 100
const topicOf = (partition: number) => Math.floor(partition / PARTITIONS_PER_TOPIC)

/** The n-th write of a partition's state record, as server/engine/state/state-fencing.ts partitionStateWrite makes it. */
function stateEntry(partition: number, write: number): { key: string; value: string } {
  const topic = topicOf(partition)
  const value = {
    topic: `orders-${topic}`,
    partition: partition % PARTITIONS_PER_TOPIC,
    ...createMirrorPartition(1_767_000_000_000),
    state: write % 7 === 0 ? 'PREPARING' : 'MIRRORING',
    previousState: 'PREPARING',
    stateEpoch: write,
    stateSince: 1_767_000_000_000 + write,
    lastMirrorPosition: { epoch: 3, offset: partition * 1_000 + write },
    leaderEpoch: 12,
  }
  return { key: encodeKey({ kind: 'partition', mirror: MIRROR, topicId: `topic-id-${topic}`, partition: partition % PARTITIONS_PER_TOPIC }), value: JSON.stringify(value) }
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
  const ms = performance.now() - start
  // The cluster's own view (DescribeClusterMirrors, the failback lookup), rebuilt on open from the same records.
  const partitionStates = Object.keys((await cluster.listHostedMirrors())[0]?.partitionStates ?? {}).length
  if (partitionStates !== PARTITIONS) throw new Error(`the mirror state view holds ${partitionStates} partitions, not ${PARTITIONS}`)
  return { ms, recordsRead: records.length, keys: latest.size, cluster }
}

export async function benchStorageCompaction(): Promise<BenchResult[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compaction-'))
  // The background cleaner would compact while the writes go on; the "before" figure is of an uncleaned log.
  processLogCleaner.stop()
  try {
    const writer = await EmbeddedCluster.open(root, { name: 'bench', brokers: BROKERS })
    const topics = Array.from({ length: PARTITIONS / PARTITIONS_PER_TOPIC }, (_, topic) => `orders-${topic}`)
    await writer.appendMirrorState([{ key: encodeKey({ kind: 'mirror', mirror: MIRROR }), value: JSON.stringify({ name: MIRROR, sourceClusterId: 'source-cluster-id', topics }) }])
    let write = 0
    while (write < WRITES) {
      const entries = Array.from({ length: WRITES_PER_APPEND }, (_, i) => {
        const n = write + i
        return stateEntry(n % PARTITIONS, Math.floor(n / PARTITIONS))
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
      { name: '  keys restored (same before and after): 10,000 partitions and the mirror', value: after.keys, unit: 'keys' },
      { name: 'compaction pass', value: cleanMs, unit: 'ms' },
      { name: '  longest event-loop stall during the pass', value: longestStallMs, unit: 'ms', goal: '< 100 ms' },
      { name: 'data directory', value: bytesAfter / (1 << 20), unit: 'MiB', baseline: { name: 'before', value: bytesBefore / (1 << 20) }, ratio: bytesAfter / bytesBefore },
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
