import { expect, it } from 'vitest'
import type { MirrorHost } from '@/server/cluster/ports'
import { MirrorStateStore } from './state-store'

/** A host that records every `__mirror_state` append, as the embedded cluster would (1 MiB message limit). */
function recordingHost() {
  const appends: number[] = []
  const records: Array<{ key: string; value: string | null }> = []
  const host = {
    async appendMirrorState(entries: Array<{ key: string; value: string | null }>) {
      const bytes = entries.reduce((sum, entry) => sum + entry.key.length + (entry.value?.length ?? 0), 0)
      if (bytes > 1024 * 1024) throw new Error(`batch of ${bytes} bytes exceeds maxMessageBytes`)
      appends.push(entries.length)
      records.push(...entries)
      await new Promise((resolve) => setTimeout(resolve, 1))
    },
    async readMirrorState() {
      return records
    },
  } as unknown as MirrorHost
  return { host, appends, records }
}

const value = { state: 'PAUSING', detail: 'x'.repeat(300) }

it('combines concurrent writes but never into an append over the message limit', async () => {
  const { host, appends, records } = recordingHost()
  const store = new MirrorStateStore(host)
  await Promise.all(
    Array.from({ length: 8_000 }, (_, partition) => store.write([{ key: { kind: 'partition', mirror: 'm', topicId: 't', partition }, value }])),
  )
  expect(records).toHaveLength(8_000)
  expect(appends.length).toBeGreaterThan(1)
  expect(appends.length).toBeLessThan(100)
})

it('splits one write larger than an append, and it resolves once all of it is durable', async () => {
  const { host, records } = recordingHost()
  const store = new MirrorStateStore(host)
  await store.write(Array.from({ length: 16_000 }, (_, partition) => ({ key: { kind: 'partition' as const, mirror: 'm', topicId: 't', partition }, value })))
  expect(records).toHaveLength(16_000)
  expect((await store.replay()).size).toBe(16_000)
})
