import { RawFetcher } from './raw-fetch'

/**
 * One partition's log as the broker holds it, per batch `[baseOffset, lastOffset, "key=value,…"]`, read raw and
 * read_uncommitted: what tests compare between a source and its mirror's destination, offset by offset. Producer
 * ids are left out (each side has its own).
 */
export async function brokerBatches(bootstrap: string, topic: string, partition: number, clientId: string): Promise<Array<[number, number, string]>> {
  const raw = await RawFetcher.connect({ brokers: [bootstrap], clientId })
  try {
    const out: Array<[number, number, string]> = []
    for (let offset = 0n; ; ) {
      const page = await raw.fetch({ topic, partition, fetchOffset: offset, isolationLevel: 'read_uncommitted', maxBytes: 8 << 20, maxWaitTimeMs: 0 })
      if (page.batches.length === 0) return out
      for (const b of page.batches) out.push([Number(b.baseOffset), Number(b.lastOffset), b.records.map((r) => `${r.key}=${r.value}`).join(',')])
      offset = page.batches.at(-1)!.lastOffset + 1n
    }
  } finally {
    await raw.disconnect()
  }
}
