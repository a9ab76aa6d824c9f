import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { LagArchive } from './lag-archive'

const DAY = 24 * 60 * 60 * 1000
let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

it('keeps 30 days of recovery-point minutes, pruned by the appends, never by the reads', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-rpo-archive-'))
  const archive = new LagArchive(dir)
  const start = Date.UTC(2026, 10, 1)
  await archive.appendRecoveryPoint('m', { t: start, r: 3, s: 1_000, k: true })
  await archive.appendRecoveryPoint('m', { t: start + 20 * DAY, r: 0, s: 0, k: false })
  const file = path.join(dir, 'recovery-points', 'm.jsonl')
  // A read 31 days on leaves the file as it is and answers what is within retention and the window.
  expect(await archive.loadRecoveryPoints('m', start + 31 * DAY, start)).toEqual([{ t: start + 20 * DAY, r: 0, s: 0, k: false }])
  expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2)
  // The next append a day after the last prune drops the minute past retention.
  await archive.appendRecoveryPoint('m', { t: start + 31 * DAY, r: 1, s: null, k: true })
  expect(readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { t: number }).t)).toEqual([start + 20 * DAY, start + 31 * DAY])
})

it("removes a mirror's lag history and recovery points after the writes asked before, and no other mirror's", async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-rpo-archive-'))
  const archive = new LagArchive(dir)
  const t = Date.UTC(2026, 10, 1)
  await archive.append('m-2', { t, p: [['orders', 0, 5, 1_000]] })
  await archive.appendRecoveryPoint('m-2', { t, r: 5, s: 1_000, k: true })
  // Asked but not awaited: a minute the sampler archived just before the delete.
  const appended = archive.append('m', { t, p: [['orders', 0, 5, 1_000]] })
  const pointAppended = archive.appendRecoveryPoint('m', { t, r: 5, s: 1_000, k: true })
  const removed = archive.remove('m')
  await Promise.all([appended, pointAppended, removed])
  expect(readdirSync(dir).sort()).toEqual(['m-2.jsonl', 'recovery-points'])
  expect(readdirSync(path.join(dir, 'recovery-points'))).toEqual(['m-2.jsonl'])
  expect(await archive.loadRecoveryPoints('m', t + DAY, t - DAY)).toEqual([])
  expect(await archive.load('m', t + DAY, t - DAY)).toEqual([])
  expect(await archive.loadRecoveryPoints('m-2', t + DAY, t - DAY)).toEqual([{ t, r: 5, s: 1_000, k: true }])
  // Removing what is not there is not an error.
  await archive.remove('never-was')
})

it("a mirror named x.rpo and a mirror named x keep their own files: x.rpo's lag is not x's recovery points", async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-rpo-archive-'))
  const archive = new LagArchive(dir)
  const t = Date.UTC(2026, 10, 1)
  await archive.append('x.rpo', { t, p: [['orders', 0, 7, 2_000]] })
  await archive.appendRecoveryPoint('x', { t, r: 3, s: 1_000, k: true })
  await archive.appendRecoveryPoint('x.rpo', { t, r: 7, s: 2_000, k: true })
  expect(await archive.load('x.rpo', t + DAY, t - DAY)).toEqual([{ t, p: [['orders', 0, 7, 2_000]] }])
  expect(await archive.loadRecoveryPoints('x', t + DAY, t - DAY)).toEqual([{ t, r: 3, s: 1_000, k: true }])
  expect(await archive.loadRecoveryPoints('x.rpo', t + DAY, t - DAY)).toEqual([{ t, r: 7, s: 2_000, k: true }])
  // Deleting one leaves the other's history whole.
  await archive.remove('x.rpo')
  expect(await archive.loadRecoveryPoints('x', t + DAY, t - DAY)).toEqual([{ t, r: 3, s: 1_000, k: true }])
  await archive.remove('x')
  expect(readdirSync(dir)).toEqual(['recovery-points'])
  expect(readdirSync(path.join(dir, 'recovery-points'))).toEqual([])
})

it('moves the old layout\'s recovery points (<mirror>.rpo.jsonl) on open, keeping a mirror x.rpo\'s lag lines in that file', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-rpo-archive-'))
  const t = Date.UTC(2026, 10, 1)
  const line = (value: object) => `${JSON.stringify(value)}\n`
  // As the old layout left them: m's recovery points alone; x's and x.rpo's lag interleaved in one file, with a torn last line.
  writeFileSync(path.join(dir, 'm.rpo.jsonl'), line({ t, r: 1, s: 10, k: true }) + line({ t: t + 60_000, r: 2, s: 20, k: false }))
  writeFileSync(path.join(dir, 'm.jsonl'), line({ t, p: [] }))
  writeFileSync(path.join(dir, 'x.rpo.jsonl'), line({ t, r: 3, s: 30, k: true }) + line({ t, p: [['orders', 0, 7, 2_000]] }) + line({ t: t + 60_000, r: 4, s: null, k: true }) + '{"t":')
  // A minute a previous, interrupted migration already moved: not counted twice.
  mkdirSync(path.join(dir, 'recovery-points'))
  writeFileSync(path.join(dir, 'recovery-points', 'x.jsonl'), line({ t, r: 3, s: 30, k: true }))

  const archive = new LagArchive(dir)
  expect(await archive.loadRecoveryPoints('m', t + DAY, t - DAY)).toEqual([{ t, r: 1, s: 10, k: true }, { t: t + 60_000, r: 2, s: 20, k: false }])
  expect(await archive.loadRecoveryPoints('x', t + DAY, t - DAY)).toEqual([{ t, r: 3, s: 30, k: true }, { t: t + 60_000, r: 4, s: null, k: true }])
  expect(await archive.load('x.rpo', t + DAY, t - DAY)).toEqual([{ t, p: [['orders', 0, 7, 2_000]] }])
  expect(await archive.loadRecoveryPoints('x.rpo', t + DAY, t - DAY)).toEqual([])
  expect(await archive.load('m', t + DAY, t - DAY)).toEqual([{ t, p: [] }])
  expect(readdirSync(dir).sort()).toEqual(['m.jsonl', 'recovery-points', 'x.rpo.jsonl'])
  expect(readdirSync(path.join(dir, 'recovery-points')).sort()).toEqual(['m.jsonl', 'x.jsonl'])
  // Opened again (the next start), nothing moves twice.
  const again = new LagArchive(dir)
  expect(await again.loadRecoveryPoints('x', t + DAY, t - DAY)).toHaveLength(2)
})
