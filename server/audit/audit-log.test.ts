import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '@/lib/api/audit'
import { AuditLog, type AuditInput } from './audit-log'
import { REDACTED, summarizeRequest } from './summarize'

let dir: string
let file: string
const logs: AuditLog[] = []

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-audit-'))
  file = path.join(dir, 'audit', 'audit.jsonl')
})
afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()))
  rmSync(dir, { recursive: true, force: true })
})

async function openLog(options: Parameters<typeof AuditLog.open>[1] = {}): Promise<AuditLog> {
  const log = await AuditLog.open(file, options)
  logs.push(log)
  return log
}

function input(overrides: Partial<AuditInput> = {}): AuditInput {
  return {
    actor: 'token:operator',
    role: 'operator',
    action: 'topic.create',
    target: '/clusters/a/topics',
    request: { name: 'orders', partitions: 3 },
    outcome: 'ok',
    error: null,
    dryRun: false,
    ...overrides,
  }
}

function lines(): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '')
}

describe('AuditLog', () => {
  it('writes each entry as one JSON line before append resolves, numbering from 1', async () => {
    let now = 1000
    const log = await openLog({ now: () => now++ })
    const first = await log.append(input())
    expect(first).toEqual({ id: 1, at: 1000, ...input() })
    expect(lines().map((line) => JSON.parse(line) as AuditEntry)).toEqual([first])
    const second = await log.append(input({ outcome: 'rejected', error: { code: 'FORBIDDEN', message: 'no' } }))
    expect(second.id).toBe(2)
    expect(lines()).toHaveLength(2)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('keeps the call order of concurrent appends', async () => {
    const log = await openLog()
    const entries = await Promise.all(Array.from({ length: 20 }, (_, n) => log.append(input({ target: `t${n}` }))))
    expect(entries.map((entry) => entry.id)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1))
    expect(lines().map((line) => (JSON.parse(line) as AuditEntry).target)).toEqual(Array.from({ length: 20 }, (_, n) => `t${n}`))
  })

  it('reopens with every entry and carries on numbering', async () => {
    const log = await openLog()
    await log.append(input())
    await log.append(input())
    await log.close()
    const reopened = await openLog()
    expect(reopened.recovery).toEqual({ entries: 2, damagedLines: 0, truncatedBytes: 0 })
    expect((await reopened.append(input())).id).toBe(3)
    expect((await reopened.query({ limit: 10 })).map((entry) => entry.id)).toEqual([3, 2, 1])
  })

  it('cuts off a torn last line at recovery and appends on a fresh line', async () => {
    const log = await openLog()
    await log.append(input())
    await log.append(input())
    await log.close()
    const torn = '{"id":3,"at":5,"actor":"tok'
    appendFileSync(file, torn)
    const reopened = await openLog()
    expect(reopened.recovery).toEqual({ entries: 2, damagedLines: 0, truncatedBytes: torn.length })
    expect(readFileSync(file, 'utf8').endsWith('}\n')).toBe(true)
    const next = await reopened.append(input({ action: 'after.crash' }))
    expect(next.id).toBe(3)
    expect(lines().map((line) => (JSON.parse(line) as AuditEntry).action)).toEqual(['topic.create', 'topic.create', 'after.crash'])
  })

  it('skips a damaged line in the middle and reports it', async () => {
    const log = await openLog()
    await log.append(input())
    await log.close()
    appendFileSync(file, 'garbage\n{"id":"x"}\n')
    const damaged: number[] = []
    const again = await openLog({ onDamagedLine: ({ lineNumber }) => damaged.push(lineNumber) })
    expect(again.recovery).toEqual({ entries: 1, damagedLines: 2, truncatedBytes: 0 })
    expect(damaged).toEqual([2, 3])
    expect((await again.append(input())).id).toBe(2)
  })

  it('treats a file holding only a torn line as empty', async () => {
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, '{"id":1,')
    const log = await openLog()
    expect(log.recovery).toEqual({ entries: 0, damagedLines: 0, truncatedBytes: 8 })
    expect((await log.append(input())).id).toBe(1)
    expect(lines()).toHaveLength(1)
  })

  it('filters by actor, action (exact or prefix), outcome, time and id, newest first', async () => {
    let now = 100
    const log = await openLog({ now: () => (now += 10) })
    await log.append(input({ actor: 'token:operator', action: 'topic.create' })) // 1 at 110
    await log.append(input({ actor: 'token:viewer', action: 'topic.create', outcome: 'rejected' })) // 2 at 120
    await log.append(input({ actor: 'token:operator', action: 'cluster.create' })) // 3 at 130
    await log.append(input({ actor: 'session:ab', action: 'producer.send' })) // 4 at 140
    const ids = async (filter: Parameters<AuditLog['query']>[0]) => (await log.query(filter)).map((entry) => entry.id)
    expect(await ids({ limit: 100 })).toEqual([4, 3, 2, 1])
    expect(await ids({ limit: 2 })).toEqual([4, 3])
    expect(await ids({ limit: 100, actor: 'token:operator' })).toEqual([3, 1])
    expect(await ids({ limit: 100, action: 'topic.create' })).toEqual([2, 1])
    expect(await ids({ limit: 100, action: 'c*' })).toEqual([3])
    expect(await ids({ limit: 100, outcome: 'rejected' })).toEqual([2])
    expect(await ids({ limit: 100, from: 120, to: 140 })).toEqual([3, 2])
    expect(await ids({ limit: 100, before: 3 })).toEqual([2, 1])
  })

  it('answers queries beyond its memory window from the file', async () => {
    const log = await openLog({ memoryLimit: 3 })
    for (let n = 0; n < 8; n++) await log.append(input({ action: n % 2 === 0 ? 'even' : 'odd' }))
    expect((await log.query({ limit: 100, action: 'even' })).map((entry) => entry.id)).toEqual([7, 5, 3, 1])
    expect((await log.query({ limit: 2, action: 'odd' })).map((entry) => entry.id)).toEqual([8, 6])
    expect((await log.query({ limit: 100, before: 3 })).map((entry) => entry.id)).toEqual([2, 1])
  })

  it('tells its listener about every appended entry', async () => {
    const seen: number[] = []
    const log = await openLog({ onAppend: (entry) => seen.push(entry.id) })
    await log.append(input())
    await log.append(input())
    expect(seen).toEqual([1, 2])
  })

  it('keeps the operation an entry started, and finds the entry by it, also after reopening', async () => {
    const log = await openLog()
    await log.append(input({ action: 'mirror.failover', dryRun: true }))
    const started = await log.append(input({ action: 'mirror.failover', operation: 'op-1' }))
    expect(started.operation).toBe('op-1')
    await log.close()
    const reopened = await openLog()
    expect((await reopened.query({ limit: 10, operation: 'op-1' })).map((entry) => [entry.id, entry.operation])).toEqual([[2, 'op-1']])
    expect(await reopened.query({ limit: 10, operation: 'op-2' })).toEqual([])
  })

  it('refuses appends once closed', async () => {
    const log = await openLog()
    await log.close()
    await expect(log.append(input())).rejects.toThrow(/closed/)
  })
})

describe('summarizeRequest', () => {
  it('never keeps tokens, passwords or TLS material, however deeply nested', () => {
    const summary = summarizeRequest({
      token: 'mbo_secret',
      name: 'c1',
      kind: 'kafka',
      sasl: { mechanism: 'plain', username: 'u', password: 'p' },
      ssl: { ca: '-----BEGIN' },
      nested: { deeper: { apiKey: 'k', Authorization: 'Bearer x', value: 'kept' } },
    })
    expect(summary).toEqual({
      token: REDACTED,
      name: 'c1',
      kind: 'kafka',
      sasl: REDACTED,
      ssl: REDACTED,
      nested: { deeper: { apiKey: REDACTED, Authorization: REDACTED, value: 'kept' } },
    })
    expect(JSON.stringify(summary)).not.toMatch(/mbo_secret|"p"|BEGIN|Bearer/)
  })

  it("keeps of a URL only where it points: an alert receiver's credentials, path token and query values go", () => {
    const summary = summarizeRequest({ name: 'pager', url: `https://bot:pw-secret@hooks.example.com/services/T0AB12CD3/${'x'.repeat(300)}Tok3nSecret?key=k-secret`, format: 'slack' })
    expect(summary).toEqual({ name: 'pager', url: 'https://***@hooks.example.com/services/***/***?key=***', format: 'slack' })
  })

  it('shortens long strings and long arrays', () => {
    const summary = summarizeRequest({ records: Array.from({ length: 25 }, (_, n) => ({ key: `k${n}`, value: 'v'.repeat(100) })) }) as {
      records: unknown[]
    }
    expect(summary.records).toHaveLength(21)
    expect(summary.records[20]).toBe('…(5 more)')
    expect(summarizeRequest({ value: 'v'.repeat(300) })).toEqual({ value: `${'v'.repeat(256)}…(300 chars)` })
  })
})

describe('entries after an id (what the shared audit topic is owed)', () => {
  it('answers them oldest first, from memory or, when memory no longer reaches back, from the files', async () => {
    const log = await openLog({ memoryLimit: 2 })
    for (let index = 0; index < 5; index++) await log.append(input({ target: `/clusters/c${index}/topics` }))
    expect((await log.after(1, 10)).map((entry) => entry.id)).toEqual([2, 3, 4, 5])
    expect((await log.after(3, 10)).map((entry) => entry.id)).toEqual([4, 5])
    expect((await log.after(0, 2)).map((entry) => entry.id)).toEqual([1, 2])
    expect(await log.after(5, 10)).toEqual([])
  })
})
