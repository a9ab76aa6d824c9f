import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
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
  const file = path.join(dir, 'm.rpo.jsonl')
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
  expect(readdirSync(dir).sort()).toEqual(['m-2.jsonl', 'm-2.rpo.jsonl'])
  expect(await archive.loadRecoveryPoints('m', t + DAY, t - DAY)).toEqual([])
  expect(await archive.load('m', t + DAY, t - DAY)).toEqual([])
  expect(await archive.loadRecoveryPoints('m-2', t + DAY, t - DAY)).toEqual([{ t, r: 5, s: 1_000, k: true }])
  // Removing what is not there is not an error.
  await archive.remove('never-was')
})
