import 'server-only'
import type { KafkaCluster } from '@/server/cluster/kafka/kafka-cluster'

/** Told each time a read of a control topic reaches the topic's end (control-health.ts keeps how old each copy is). */
export interface ControlTopicViews {
  follows(topic: string): void
  caughtUp(topic: string): void
}

/** One partition of a control topic, read on from where the last read ended (compaction may drop records first). */
export class ControlTopicLog {
  private nextOffset = 0

  constructor(
    private readonly reader: KafkaCluster,
    readonly topic: string,
    private readonly views?: ControlTopicViews,
  ) {
    views?.follows(topic)
  }

  /** The records written since the last call, in log order (UTF-8 keys and values only: ours). */
  async readNew(): Promise<Array<{ key: string; value: string | null }>> {
    const read: Array<{ key: string; value: string | null }> = []
    for (;;) {
      const page = await this.reader.readRecords(this.topic, 0, { fromOffset: this.nextOffset, limit: 500, isolation: 'read_committed' }).catch((error: unknown) => {
        // Compaction removed what was not read yet: go on at the log start.
        const logStart = (error as { code?: string; details?: { logStartOffset?: number } }).code === 'OFFSET_OUT_OF_RANGE' ? (error as { details?: { logStartOffset?: number } }).details?.logStartOffset : undefined
        if (logStart === undefined || logStart <= this.nextOffset) throw error
        this.nextOffset = logStart
        return null
      })
      if (page === null) continue
      for (const record of page.records) {
        if (record.type === 'DATA' && record.key !== null && record.encoding === undefined) read.push({ key: record.key, value: record.value })
      }
      const last = page.records.at(-1)
      if (last) this.nextOffset = last.offset + 1
      if (!last || this.nextOffset >= page.highWatermark) {
        this.views?.caughtUp(this.topic)
        return read
      }
    }
  }
}
