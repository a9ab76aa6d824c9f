import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuditLog, type AuditInput } from './audit-log'
import { MAX_SUMMARY_BYTES, REDACTED, summarizePlan, summarizeRequest } from './summarize'

/** Issue #41 item 1: what a caller sends, anonymous or not, cannot make the audit log big. */

let dir: string
let file: string
const logs: AuditLog[] = []

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-audit-limits-'))
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
  return { actor: 'token:operator', role: 'operator', action: 'topic.create', target: '/clusters/a/topics', request: { name: 'orders' }, outcome: 'ok', error: null, dryRun: false, ...overrides }
}

const anonymousRefusal = (overrides: Partial<AuditInput> = {}) =>
  input({ actor: 'anonymous', role: null, action: 'session.create', outcome: 'rejected', error: { code: 'UNAUTHENTICATED', message: 'the token is not valid' }, ...overrides })

const serialised = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

describe('summaries within a byte budget', () => {
  it('cuts a megabyte key and counts keys against the budget', () => {
    const summary = summarizeRequest({ ['K'.repeat(1_000_000)]: 1 })
    expect(serialised(summary)).toBeLessThan(200)
    const manyKeys = Object.fromEntries(Array.from({ length: 50 }, (_, n) => [`${'k'.repeat(60)}${n}`, 'v'.repeat(250)]))
    const wide = summarizeRequest(manyKeys) as Record<string, unknown>
    expect(serialised(wide)).toBeLessThan(MAX_SUMMARY_BYTES + 600)
    expect(wide['…']).toMatch(/^\d+ more fields$/)
  })

  it('keeps nested and array-heavy bodies within the budget, secrets still redacted', () => {
    const nested = { password: 'p', items: Array.from({ length: 20 }, () => Array.from({ length: 20 }, () => ({ a: 'x'.repeat(250) }))) }
    const summary = summarizeRequest(nested) as { password: string }
    expect(summary.password).toBe(REDACTED)
    expect(serialised(summary)).toBeLessThan(MAX_SUMMARY_BYTES + 600)
  })

  it('keeps a small plan whole and shortens a large one to the budget', () => {
    expect(summarizePlan(['truncate orders-0 to 3'])).toEqual(['truncate orders-0 to 3'])
    const large = { partitions: Array.from({ length: 10_000 }, (_, n) => ({ topic: 'orders', partition: n, truncateTo: n })) }
    expect(serialised(summarizePlan(large))).toBeLessThan(MAX_SUMMARY_BYTES + 600)
  })
})

describe('AuditLog bounds', () => {
  it('cuts the target, actor and error message whatever their length', async () => {
    const log = await openLog()
    const entry = await log.append(input({ target: `/x/${'t'.repeat(20_000)}`, error: { code: 'VALIDATION_FAILED', message: 'm'.repeat(20_000) } }))
    expect(entry.target.length).toBeLessThan(600)
    expect(entry.error?.message.length).toBeLessThan(1100)
    expect(statSync(file).size).toBeLessThan(2000)
  })

  it('bounds the entries it keeps in memory by bytes, and answers older ones from the file', async () => {
    const log = await openLog({ memoryBytes: 2000 })
    for (let n = 0; n < 20; n++) await log.append(input({ target: `/t/${n}`, request: { filler: 'f'.repeat(200) } }))
    const memory = (log as unknown as { recent: unknown[] }).recent
    expect(memory.length).toBeLessThan(10)
    expect((await log.query({ limit: 100 })).map((entry) => entry.id)).toEqual(Array.from({ length: 20 }, (_, n) => 20 - n))
  })

  it('rotates by size, numbers on across files, answers queries from every file and reopens after them', async () => {
    const log = await openLog({ retention: { rotateBytes: 1000, retainBytes: 1024 * 1024, retainMs: 1e12 } })
    for (let n = 0; n < 30; n++) await log.append(input({ target: `/t/${n}` }))
    const names = readdirSync(path.dirname(file)).sort()
    expect(names.length).toBeGreaterThan(3)
    expect(names).toContain('audit.jsonl')
    expect(names.every((name) => name === 'audit.jsonl' || /^audit-\d{12}\.jsonl$/.test(name))).toBe(true)
    for (const name of names) expect(statSync(path.join(path.dirname(file), name)).size).toBeLessThanOrEqual(1000)
    expect((await log.query({ limit: 100 })).map((entry) => entry.id)).toEqual(Array.from({ length: 30 }, (_, n) => 30 - n))
    expect((await log.query({ limit: 3, before: 5 })).map((entry) => entry.id)).toEqual([4, 3, 2])
    await log.close()
    const reopened = await openLog({ retention: { rotateBytes: 1000, retainBytes: 1024 * 1024, retainMs: 1e12 } })
    expect((await reopened.append(input())).id).toBe(31)
    expect((await reopened.query({ limit: 100, before: 30 })).length).toBe(29)
  })

  it('keeps rotated files within the total size and age, never the file it appends to', async () => {
    const retention = { rotateBytes: 1000, retainBytes: 3000, retainMs: 60_000 }
    const log = await openLog({ retention })
    for (let n = 0; n < 60; n++) await log.append(input({ target: `/t/${n}` }))
    const auditDir = path.dirname(file)
    const total = () => readdirSync(auditDir).reduce((sum, name) => sum + statSync(path.join(auditDir, name)).size, 0)
    expect(total()).toBeLessThanOrEqual(3000)
    expect((await log.query({ limit: 1 }))[0]?.id).toBe(60)
    await log.close()
    // Rotated files last written two minutes ago are past the age; the appended file stays.
    const old = new Date(Date.now() - 120_000)
    for (const name of readdirSync(auditDir)) if (name !== 'audit.jsonl') utimesSync(path.join(auditDir, name), old, old)
    const reopened = await openLog({ retention })
    expect(readdirSync(auditDir)).toEqual(['audit.jsonl'])
    expect((await reopened.append(input())).id).toBe(61)
  })

  it('collapses anonymous refusals per source and minute into one entry with a count', async () => {
    let now = 1_000_000
    const written: number[] = []
    const log = await openLog({ now: () => now, onAppend: (entry) => written.push(entry.id) })
    expect(await log.record(anonymousRefusal(), '10.0.0.1')).toMatchObject({ count: 1, source: '10.0.0.1' })
    for (let n = 0; n < 149; n++) expect(await log.record(anonymousRefusal(), '10.0.0.1')).toBeNull()
    // Another source has a minute of its own; an authenticated refusal is always written.
    expect(await log.record(anonymousRefusal(), '10.0.0.2')).toMatchObject({ count: 1, source: '10.0.0.2' })
    expect(await log.record(input({ actor: 'token:viewer', role: 'viewer', outcome: 'rejected' }), '10.0.0.1')).not.toBeNull()
    expect(written).toHaveLength(3)
    now += 60_000
    const next = await log.record(anonymousRefusal(), '10.0.0.1')
    expect(next).toMatchObject({ count: 1 })
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { count?: number; source?: string })
    expect(lines.map((line) => line.count ?? null)).toEqual([1, 1, null, 149, 1])
    await log.close()
    // Held-back counts are written at close too: the 10.0.0.1 minute above had none held back yet.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5)
  })
})
