import { expect, it } from 'vitest'
import { formatReplicationOffsetCheckpoint, parseReplicationOffsetCheckpoint } from './replication-offset-checkpoint'

it("writes Kafka's replication-offset-checkpoint layout and reads it back", () => {
  const entries = [
    { topic: 'orders', partition: 0, highWatermark: 3 },
    { topic: 'orders-eu', partition: 12, highWatermark: 0 },
    { topic: '__mirror_state', partition: 0, highWatermark: 30_001 },
  ]
  const text = formatReplicationOffsetCheckpoint(entries)
  expect(text).toBe('0\n3\norders 0 3\norders-eu 12 0\n__mirror_state 0 30001\n')
  expect(parseReplicationOffsetCheckpoint(text)).toEqual(entries)
  expect(parseReplicationOffsetCheckpoint(formatReplicationOffsetCheckpoint([]))).toEqual([])
})

it('refuses a torn or foreign file rather than reading wrong high watermarks', () => {
  for (const text of ['', '1\n0\n', '0\n2\norders 0 3\n', '0\n1\norders 0\n', '0\n1\norders -1 3\n', '0\n1\norders 0 x\n', '0\n1\n 0 3\n']) {
    expect(() => parseReplicationOffsetCheckpoint(text), JSON.stringify(text)).toThrow(/malformed replication-offset-checkpoint/)
  }
})
