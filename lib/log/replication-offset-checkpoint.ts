import { StorageError } from './errors'

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
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const bad = (why: string) => new StorageError('CORRUPT_RECORD', `malformed replication-offset-checkpoint: ${why}`)
  if (lines[0] !== '0') throw bad(`unsupported version ${JSON.stringify(lines[0])}`)
  const count = Number(lines[1])
  if (!Number.isInteger(count) || count < 0 || lines.length !== count + 2) throw bad('entry count does not match')
  return lines.slice(2).map((line) => {
    const fields = line.split(' ')
    const partition = Number(fields[1])
    const highWatermark = Number(fields[2])
    if (fields.length !== 3 || fields[0] === '' || !Number.isSafeInteger(partition) || partition < 0 || !Number.isSafeInteger(highWatermark) || highWatermark < 0) {
      throw bad(`line ${JSON.stringify(line)}`)
    }
    return { topic: fields[0]!, partition, highWatermark }
  })
}
