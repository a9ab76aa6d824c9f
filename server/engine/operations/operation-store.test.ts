import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_RETENTION, expiredOperations, OperationStore, STORED_OPERATION_VERSION, type StoredOperation } from './operation-store'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'operation-store-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function record(overrides: Partial<StoredOperation> = {}): StoredOperation {
  return {
    version: STORED_OPERATION_VERSION,
    sequence: 0,
    id: 'op-1',
    kind: 'failover',
    mirror: 'dr',
    status: 'running',
    startedAt: 1000,
    finishedAt: null,
    requestedBy: { actor: 'token:operator', role: 'operator' },
    resumedAt: [],
    plan: { mirror: 'dr', canProceed: true, gates: [{ name: 'source-reachable', ok: true, severity: 'blocking', detail: 'ok' }], partitions: [] },
    partitions: [{ topic: 'orders', partition: 0, acceptedStateEpoch: 4, step: null, state: 'MIRRORING', error: null, finishedAt: null }],
    ...overrides,
  }
}

describe('OperationStore', () => {
  it('reads back every saved record after reopening, in acceptance order', async () => {
    const store = await OperationStore.open(dir)
    await store.save(record({ id: 'later', sequence: 1, startedAt: 900 }))
    await store.save(record({ id: 'earlier', sequence: 0, startedAt: 900 }))
    const reopened = await OperationStore.open(dir)
    expect(reopened.loaded.map((operation) => operation.id)).toEqual(['earlier', 'later'])
    expect(reopened.loaded[1]).toEqual(record({ id: 'later', sequence: 1, startedAt: 900 }))
    expect(reopened.recovery).toEqual({ operations: 2, damagedFiles: [] })
  })

  it('writes the record as it was when saved, and the saves of one operation in call order', async () => {
    const store = await OperationStore.open(dir)
    const changing = record()
    const saves = [store.save(changing)]
    changing.status = 'succeeded'
    changing.finishedAt = 2000
    saves.push(store.save(changing))
    changing.status = 'failed'
    await Promise.all(saves)
    expect((await OperationStore.open(dir)).loaded).toEqual([record({ status: 'succeeded', finishedAt: 2000 })])
  })

  it('keeps the whole previous record when a crash left a torn temp file, and removes the temp file', async () => {
    const store = await OperationStore.open(dir)
    await store.save(record())
    writeFileSync(path.join(dir, 'op-1.json.tmp'), '{"version":1,"sequence":0,"id":"op-1","stat')
    const reopened = await OperationStore.open(dir)
    expect(reopened.loaded).toEqual([record()])
    expect(readdirSync(dir)).toEqual(['op-1.json'])
  })

  it('reports and skips a damaged record without losing the others', async () => {
    const store = await OperationStore.open(dir)
    await store.save(record({ id: 'good' }))
    writeFileSync(path.join(dir, 'garbage.json'), 'not json')
    writeFileSync(path.join(dir, 'wrong.json'), JSON.stringify(record({ id: 'other' })))
    writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ ...record({ id: 'old' }), version: 0 }))
    const damaged: string[] = []
    const reopened = await OperationStore.open(dir, { onDamagedFile: ({ file }) => damaged.push(path.basename(file)) })
    expect(reopened.loaded.map((operation) => operation.id)).toEqual(['good'])
    expect(reopened.recovery.damagedFiles).toEqual(['garbage.json', 'old.json', 'wrong.json'])
    expect(damaged).toEqual(['garbage.json', 'old.json', 'wrong.json'])
  })

  it('removes records, after any write of theirs still running', async () => {
    const store = await OperationStore.open(dir)
    await store.save(record({ id: 'kept' }))
    const pending = store.save(record({ id: 'dropped', sequence: 1 }))
    await store.remove(['dropped'])
    await pending
    expect(existsSync(path.join(dir, 'dropped.json'))).toBe(false)
    expect((await OperationStore.open(dir)).loaded.map((operation) => operation.id)).toEqual(['kept'])
  })

  it('in memory, keeps nothing on disk', async () => {
    const store = OperationStore.inMemory()
    await store.save(record())
    await store.remove(['op-1'])
    await store.flush()
    expect(store.loaded).toEqual([])
  })
})

describe('expiredOperations', () => {
  const day = 24 * 60 * 60 * 1000
  const now = 100 * day
  /** Newest first, one a day back from `now`. */
  const history = (count: number, status: StoredOperation['status'] = 'succeeded') =>
    Array.from({ length: count }, (_, index) => ({ id: `op-${index}`, status, startedAt: now - index * day }))

  it('keeps the newest 1,000 however old they are', () => {
    const old = Array.from({ length: 1_200 }, (_, index) => ({ id: `op-${index}`, status: 'failed' as const, startedAt: now - 365 * day - index }))
    expect(expiredOperations(old, now, DEFAULT_RETENTION)).toEqual(old.slice(1_000).map((operation) => operation.id))
  })

  it('keeps beyond the newest ones what is younger than the age limit', () => {
    const policy = { keepLatest: 2, keepForMs: 30 * day, maxOperations: 100 }
    expect(expiredOperations(history(40), now, policy)).toEqual(history(40).slice(30).map((operation) => operation.id))
  })

  it('keeps no more than the cap, even of young operations', () => {
    const policy = { keepLatest: 2, keepForMs: 30 * day, maxOperations: 5 }
    expect(expiredOperations(history(10), now, policy)).toEqual(['op-5', 'op-6', 'op-7', 'op-8', 'op-9'])
  })

  it('never lets a running operation go', () => {
    const policy = { keepLatest: 1, keepForMs: 0, maxOperations: 1 }
    const operations = [...history(2), { id: 'running', status: 'running' as const, startedAt: 0 }]
    expect(expiredOperations(operations, now, policy)).toEqual(['op-1'])
  })
})
