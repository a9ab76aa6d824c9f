import { describe, expect, it } from 'vitest'
import { decodeKey, encodeKey, readMirrorDefinition, readPartitionState, type StateRecordKey } from './mirror-state-records'

/** A value as it comes back from the log: written as JSON, read as JSON (server/engine/state/state-store.ts). */
const throughTheLog = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('__mirror_state keys (DESIGN.md §4 "State store")', () => {
  it('writes the three kinds as mirror/<m>, partition/<m>/<topicId>/<n> and position/<m>/<topicId>/<n>', () => {
    expect(encodeKey({ kind: 'mirror', mirror: 'eu-west' })).toBe('mirror/eu-west')
    expect(encodeKey({ kind: 'partition', mirror: 'eu-west', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 3 })).toBe('partition/eu-west/AAAAAAAAAAAAAAAAAAAAAQ/3')
    expect(encodeKey({ kind: 'position', mirror: 'eu-west', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 })).toBe('position/eu-west/AAAAAAAAAAAAAAAAAAAAAQ/0')
  })

  it('reads back every key it writes, field by field', () => {
    const keys: StateRecordKey[] = [
      { kind: 'mirror', mirror: 'm.1_a-b' },
      { kind: 'partition', mirror: 'm', topicId: 'tid-_x', partition: 0 },
      { kind: 'partition', mirror: 'm', topicId: 'tid', partition: 2_147_483_647 },
      { kind: 'position', mirror: 'orders-mirror', topicId: 'Zm9vYmFy', partition: 17 },
    ]
    for (const key of keys) expect(decodeKey(encodeKey(key))).toEqual(key)
  })

  it('tells a partition key from a position key of the same partition', () => {
    expect(decodeKey('partition/m/t/1')).toEqual({ kind: 'partition', mirror: 'm', topicId: 't', partition: 1 })
    expect(decodeKey('position/m/t/1')).toEqual({ kind: 'position', mirror: 'm', topicId: 't', partition: 1 })
  })

  it('answers null for a key of another kind or shape, so an older reader leaves a newer log alone', () => {
    for (const text of ['', 'mirror', 'mirror/', 'mirror/m/extra', 'mirrors/m', 'Mirror/m', 'group/m/t/1', 'lag/m/t/1', 'partition/m/t', 'partition/m/t/1/2', 'position/m', '/m/t/1'])
      expect(decodeKey(text), text).toBeNull()
  })

  it('refuses a partition or position key with an empty mirror or topic id', () => {
    for (const kind of ['partition', 'position']) {
      expect(decodeKey(`${kind}//t/1`)).toBeNull()
      expect(decodeKey(`${kind}/m//1`)).toBeNull()
    }
  })

  it('refuses a partition number that is not a non-negative integer', () => {
    for (const kind of ['partition', 'position'])
      for (const number of ['-1', '1.5', 'x', 'NaN', 'Infinity', '9007199254740993']) expect(decodeKey(`${kind}/m/t/${number}`), `${kind} ${number}`).toBeNull()
  })

  it('refuses a partition number spelled another way than encodeKey writes it: every key it accepts round-trips', () => {
    // Number() reads '', '01', ' 1', '1e0', '0x1', '+1' and '1.' as 0 or 1; a reader that took them would see
    // two keys of one partition that compaction keeps apart, and answer the older as the newer's state.
    const spellings = ['', ' ', '01', '00', ' 1', '1 ', '1e0', '0x1', '0b1', '+1', '1.', '1.0', '-0', '\t2', '2\n']
    for (const kind of ['partition', 'position']) {
      for (const number of spellings) expect(decodeKey(`${kind}/m/t/${number}`), JSON.stringify(`${kind} ${number}`)).toBeNull()
      for (const number of ['0', '7', '10', '2147483647']) {
        const text = `${kind}/m/t/${number}`
        const key = decodeKey(text)
        expect(key && encodeKey(key), text).toBe(text)
      }
    }
  })
})

describe('readMirrorDefinition', () => {
  const definition = { name: 'eu-west', sourceClusterId: 'src-cluster-id', topics: ['orders', 'payments'] }

  it('reads the name, the source cluster id and the topics of a definition written as JSON', () => {
    expect(readMirrorDefinition(throughTheLog(definition))).toEqual(definition)
    expect(readMirrorDefinition({ ...definition, topics: [] })).toEqual({ ...definition, topics: [] })
  })

  it('keeps only the fields a cluster reads back, and a copy of the topics', () => {
    const value = { ...definition, topics: ['orders'], config: { 'mirror.replication.throttled.rate': 1024 }, createdAt: 5 }
    const read = readMirrorDefinition(value)
    expect(read).toEqual({ name: 'eu-west', sourceClusterId: 'src-cluster-id', topics: ['orders'] })
    value.topics.push('added-later')
    expect(read?.topics).toEqual(['orders'])
  })

  it('answers null for a value that is no definition instead of stopping the reader', () => {
    const broken: unknown[] = [
      null,
      undefined,
      'eu-west',
      42,
      [definition],
      {},
      { ...definition, name: undefined },
      { ...definition, name: 7 },
      { ...definition, sourceClusterId: undefined },
      { ...definition, sourceClusterId: null },
      { ...definition, topics: undefined },
      { ...definition, topics: 'orders' },
      { ...definition, topics: { 0: 'orders', length: 1 } },
      { ...definition, topics: ['orders', 3] },
      { ...definition, topics: [null] },
    ]
    for (const value of broken) expect(readMirrorDefinition(value), JSON.stringify(value)).toBeNull()
  })
})

describe('readPartitionState', () => {
  const state = {
    topic: 'orders',
    partition: 2,
    state: 'MIRRORING',
    lastMirrorPosition: { epoch: 4, offset: 1200 },
    stateEpoch: 9,
    leaderEpoch: 11,
    retryAttempt: 0,
    error: null,
  }

  it('reads topic, partition, state, last mirror position, stateEpoch and leaderEpoch of a record written as JSON', () => {
    expect(readPartitionState(throughTheLog(state))).toEqual({
      topic: 'orders',
      partition: 2,
      state: 'MIRRORING',
      lastMirrorPosition: { epoch: 4, offset: 1200 },
      stateEpoch: 9,
      leaderEpoch: 11,
    })
  })

  it('takes partition 0 and epochs 0, the first of each', () => {
    expect(readPartitionState({ ...state, partition: 0, stateEpoch: 0, leaderEpoch: 0, lastMirrorPosition: { epoch: 0, offset: 0 } })).toEqual({
      topic: 'orders',
      partition: 0,
      state: 'MIRRORING',
      lastMirrorPosition: { epoch: 0, offset: 0 },
      stateEpoch: 0,
      leaderEpoch: 0,
    })
  })

  it('keeps the (-1, -1) "no history" position STOPPING records for an empty log', () => {
    expect(readPartitionState({ ...state, lastMirrorPosition: { epoch: -1, offset: -1 } })?.lastMirrorPosition).toEqual({ epoch: -1, offset: -1 })
  })

  it('reads a missing or malformed last mirror position as none, keeping the rest of the record', () => {
    for (const lastMirrorPosition of [undefined, null, 'e4@1200', [4, 1200], { epoch: 4 }, { offset: 1200 }, { epoch: '4', offset: 1200 }, { epoch: 4, offset: 1.5 }, { epoch: Number.MAX_VALUE, offset: 0 }]) {
      const read = readPartitionState({ ...state, lastMirrorPosition })
      expect(read?.lastMirrorPosition, JSON.stringify(lastMirrorPosition)).toBeNull()
      expect(read?.stateEpoch).toBe(9)
    }
  })

  it('reads each missing, negative or non-integer epoch as -1 ("none"), one field independently of the other', () => {
    for (const epoch of [undefined, null, -1, -5, 1.5, '9', Number.POSITIVE_INFINITY]) {
      expect(readPartitionState({ ...state, stateEpoch: epoch }), `stateEpoch ${String(epoch)}`).toMatchObject({ stateEpoch: -1, leaderEpoch: 11 })
      expect(readPartitionState({ ...state, leaderEpoch: epoch }), `leaderEpoch ${String(epoch)}`).toMatchObject({ stateEpoch: 9, leaderEpoch: -1 })
    }
  })

  it('answers null for a record without a topic, a valid partition or a state', () => {
    const broken: unknown[] = [
      null,
      undefined,
      'MIRRORING',
      7,
      [state],
      {},
      { ...state, topic: undefined },
      { ...state, topic: 3 },
      { ...state, partition: undefined },
      { ...state, partition: -1 },
      { ...state, partition: 1.5 },
      { ...state, partition: '2' },
      { ...state, partition: 2 ** 53 },
      { ...state, state: undefined },
      { ...state, state: 4 },
    ]
    for (const value of broken) expect(readPartitionState(value), JSON.stringify(value)).toBeNull()
  })
})
