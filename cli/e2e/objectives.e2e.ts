import { describe, expect, it } from 'vitest'
import { apiOk, everythingPrinted, expectExit, target, waitFor } from './support'

/**
 * `--objectives` (issue #38 with #34's objectives): shown against the mirror's lag and drills, set one by one (the
 * others kept, `none` removing one) through PATCH /mirrors/{m} as the API stores them, cleared; bad values and a
 * viewer refused; the failover preview's RPO line reading what was set.
 */

const MIRROR = 'ob-mirror'

async function stored(): Promise<unknown> {
  const mirror = await apiOk<{ config: Record<string, unknown> }>('GET', `/mirrors/${MIRROR}`)
  return mirror.config.objectives ?? null
}

describe('--objectives', () => {
  it('shows none set, with what is at risk now', async () => {
    for (const name of ['ob-src', 'ob-dst']) await apiOk('POST', '/clusters', { name, kind: 'embedded', brokers: 1 }, 201)
    await apiOk('POST', '/clusters/ob-src/topics', { name: 'ob-orders', partitions: 1 }, 201)
    await apiOk('POST', '/clusters/ob-src/topics/ob-orders/records', { partition: 0, records: [{ key: 'a', value: '1' }] })
    await apiOk('POST', '/mirrors', { name: MIRROR, sourceCluster: 'ob-src', destinationCluster: 'ob-dst', topics: ['ob-orders'] }, 201)
    await waitFor('lag 0', async () => ((await apiOk<{ totalOffsetLag: number | null }>('GET', `/mirrors/${MIRROR}`)).totalOffsetLag === 0 ? true : undefined))
    const shown = await expectExit(['--objectives', '--mirror', MIRROR], 0)
    expect(shown.stdout.split('\n')).toEqual([`mirror:      ${MIRROR}`, 'rpo records: none set (at risk now: 0 records)', expect.stringMatching(/^rpo seconds: none set \(at risk now: .+\)$/), 'rto:         none set', 'drills:      none set', ''])
  })

  it('sets them through the API, keeps the others when one changes, removes one with none', async () => {
    const set = await expectExit(['--objectives', '--mirror', MIRROR, '--rpo-records', '1000', '--rpo-seconds', '30', '--drill-interval-days', '30'], 0)
    expect(set.stdout.split('\n')[0]).toBe(`Objectives of ${MIRROR} set`)
    expect(set.stdout).toContain('rpo records: 1000 records: met (at risk now: 0 records)\n')
    expect(set.stdout).toMatch(/^rpo seconds: 30 s: met \(at risk now: .+\)$/m)
    expect(set.stdout).toContain('drills:      every 30 days: overdue (no successful drill yet)\n')
    expect(await stored()).toEqual({ rpoRecords: 1000, rpoSeconds: 30, drillIntervalDays: 30 })

    await expectExit(['--objectives', '--mirror', MIRROR, '--rto-seconds', '600'], 0)
    expect(await stored()).toEqual({ rpoRecords: 1000, rpoSeconds: 30, drillIntervalDays: 30, rtoSeconds: 600 })
    const removed = await expectExit(['--objectives', '--mirror', MIRROR, '--rpo-seconds', 'none', '--json'], 0)
    expect(await stored()).toEqual({ rpoRecords: 1000, drillIntervalDays: 30, rtoSeconds: 600 })
    expect(removed.stderr).toBe(`Objectives of ${MIRROR} set\n`)
    expect(JSON.parse(removed.stdout)).toMatchObject({ mirror: MIRROR, objectives: { rpoRecords: 1000, drillIntervalDays: 30, rtoSeconds: 600 }, lag: { records: 0, known: true }, drills: { intervalDays: 30, overdue: true } })
    expect(removed.stdout).not.toContain('rpoSeconds')
  })

  it("the failover preview reads the RPO objective the mirror sets", async () => {
    const preview = await expectExit(['--stop', '--mirror', MIRROR, '--type', 'unplanned', '--dry-run'], 0)
    expect(preview.stdout).toMatch(/^RPO objective: at most 1000 records: met \(0 records, .+ at risk\)$/m)
  })

  it('refuses bad values and --clear with a setter (exit 2, nothing changed), and a viewer (exit 1)', async () => {
    for (const args of [
      ['--rpo-records', '-1'],
      ['--rpo-records', '1.5'],
      ['--rpo-seconds', 'soon'],
      ['--drill-interval-days', '0'],
      ['--rto-seconds', '99999999999'],
      ['--clear', '--rto-seconds', '5'],
    ]) {
      const refused = await expectExit(['--objectives', '--mirror', MIRROR, ...args], 2)
      expect(refused.stderr).toContain('Usage: mirrorboard --objectives --mirror M')
    }
    const viewer = await expectExit(['--objectives', '--mirror', MIRROR, '--rpo-records', '5'], 1, { as: 'viewer' })
    expect(viewer.stderr).toMatch(/FORBIDDEN/)
    await expectExit(['--objectives', '--mirror', MIRROR], 0, { as: 'viewer' })
    expect(await stored()).toEqual({ rpoRecords: 1000, drillIntervalDays: 30, rtoSeconds: 600 })
  })

  it('--clear removes them all', async () => {
    const cleared = await expectExit(['--objectives', '--mirror', MIRROR, '--clear'], 0)
    expect(cleared.stdout.split('\n')[0]).toBe(`Objectives of ${MIRROR} removed`)
    expect(await stored()).toBeNull()
    expect(cleared.stdout).toContain('rto:         none set\n')
    expect(everythingPrinted()).not.toContain(target.operatorToken)
    expect(everythingPrinted()).not.toContain(target.viewerToken)
  })
})
