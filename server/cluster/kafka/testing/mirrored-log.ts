import 'server-only'
import { KafkaCluster } from '../kafka-cluster'
import { OffsetTranslation } from '../offset-translation'

/** One record as a read_committed consumer gets it: `[offset, "key=value"]`. */
export type LoggedRecord = [number, string]

/** A partition's DATA records read_committed from offset 0 (aborted records and markers left out), below `below`. */
async function committedRecords(cluster: KafkaCluster, topic: string, partition: number, below = Number.POSITIVE_INFINITY): Promise<LoggedRecord[]> {
  const out: LoggedRecord[] = []
  for (let offset = 0; offset < below; ) {
    const page = await cluster.readRecords(topic, partition, { fromOffset: offset, limit: 500, isolation: 'read_committed' })
    for (const record of page.records) if (record.type === 'DATA' && record.offset < below) out.push([record.offset, `${record.key}=${record.value}`])
    const last = page.records.at(-1)
    if (!last || last.offset + 1 >= page.highWatermark) break
    offset = last.offset + 1
  }
  return out
}

/** A source partition's records as a read_committed consumer reads them, at the source's own offsets. */
export async function sourceLog(bootstrap: string, topic: string, partition: number): Promise<LoggedRecord[]> {
  const cluster = await KafkaCluster.open('source-log', { bootstrapServers: [bootstrap], allowedHosts: null })
  try {
    return await committedRecords(cluster, topic, partition)
  } finally {
    await cluster.close()
  }
}

/**
 * A mirror partition's records as a read_committed consumer of the destination reads them, each destination offset
 * taken back to its source offset through the emulation's persisted translation (the state topic's record of the
 * partition, read read_committed as another instance reads it). With atomic appends (issue #40) every append's COMMIT
 * marker takes a destination offset, so raw offsets drift from the source's; what must hold is that the destination,
 * through the translation, equals the source offset by offset: no gap, no duplicate. Only what the record covers
 * (below its log end) is read: an append committed after the record was read would be mapped with a stale translation.
 */
export async function mirroredLog(bootstrap: string, topic: string, partition: number): Promise<LoggedRecord[]> {
  // Shared (fenced writes) like an instance: looking never recovers, claims or writes anything.
  const cluster = await KafkaCluster.open('mirrored-log', { bootstrapServers: [bootstrap], allowedHosts: null }, { fencedWrites: true })
  try {
    const tp = { topic, partition }
    const { logEndOffset } = await cluster.host.describePartition(tp)
    const translation = new OffsetTranslation(cluster.host.emulationNotes(tp)?.offsetTranslation ?? [])
    const records = await committedRecords(cluster, topic, partition, translation.toDestination(logEndOffset))
    return records.map(([offset, record]) => [translation.toSource(offset), record])
  } finally {
    await cluster.close()
  }
}
