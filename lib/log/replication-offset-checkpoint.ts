import { checkpointEntryLines } from './leader-epoch-cache'

/** One line of a broker's `replication-offset-checkpoint`: a hosted replica and its high watermark. */
export interface ReplicaHighWatermark {
  readonly topic: string
  readonly partition: number
  readonly highWatermark: number
}

/**
 * Kafka's `replication-offset-checkpoint` (OffsetCheckpointFile): version `0`, the entry count, then one line
 * per replica, `topic partition offset`. Kafka topic names have no whitespace, so the fields split on spaces.
 */
export function formatReplicationOffsetCheckpoint(entries: readonly ReplicaHighWatermark[]): string {
  const lines = ['0', String(entries.length)]
  for (const { topic, partition, highWatermark } of entries) lines.push(`${topic} ${partition} ${highWatermark}`)
  return `${lines.join('\n')}\n`
}

/** The entries of a checkpoint file; CORRUPT_RECORD when the file is not one (torn, or another version). */
export function parseReplicationOffsetCheckpoint(text: string): ReplicaHighWatermark[] {
  const { lines, bad } = checkpointEntryLines(text, 'replication-offset-checkpoint')
  return lines.map((line) => {
    const fields = line.split(' ')
    const partition = Number(fields[1])
    const highWatermark = Number(fields[2])
    if (fields.length !== 3 || fields[0] === '' || !Number.isSafeInteger(partition) || partition < 0 || !Number.isSafeInteger(highWatermark) || highWatermark < 0) {
      throw bad(`line ${JSON.stringify(line)}`)
    }
    return { topic: fields[0]!, partition, highWatermark }
  })
}
