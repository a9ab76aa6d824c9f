import { describe, expect, it } from 'vitest'
import { api, apiOk, everythingPrinted, expectExit, start, target, waitFor } from './support'

/**
 * `--stop --type planned` (issue #34) through the command line: the preview with the write fence and the drain's
 * bounds, a switchover followed to STOPPED with its phases and "records lost: 0"; and one held in its fence by a
 * transaction left open on the source, cancelled with `--operations --cancel` and followed to its rollback (exit 1,
 * the reason printed), after which the source takes writes again.
 */

const SOURCE = 'sw-src'
const DESTINATION = 'sw-dst'

async function mirrorOf(name: string, topic: string): Promise<void> {
  await apiOk('POST', `/clusters/${SOURCE}/topics`, { name: topic, partitions: 1 }, 201)
  await apiOk('POST', `/clusters/${SOURCE}/topics/${topic}/records`, { partition: 0, records: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] })
  await apiOk('POST', '/mirrors', { name, sourceCluster: SOURCE, destinationCluster: DESTINATION, topics: [topic] }, 201)
  await waitFor(`${name} MIRRORING at lag 0`, async () => {
    const rows = JSON.parse((await expectExit(['--describe', '--mirror', name, '--json'], 0)).stdout) as Array<{ state: string; lag: number }>
    return rows.length === 1 && rows.every((row) => row.state === 'MIRRORING' && row.lag === 0) ? true : undefined
  })
}

describe('--stop --type planned', () => {
  it('previews the write fence and the drain, then fences, drains and stops, printing each phase, nothing lost', async () => {
    for (const name of [SOURCE, DESTINATION]) await apiOk('POST', '/clusters', { name, kind: 'embedded', brokers: 1 }, 201)
    await mirrorOf('sw-planned', 'sw-orders')

    const preview = await expectExit(['--stop', '--type', 'planned', '--mirror', 'sw-planned', '--drain-timeout-ms', '60000', '--dry-run'], 0)
    expect(preview.stdout).toContain('Impact preview: planned failover of sw-planned, 1 of 1 partition to stop\n')
    expect(preview.stdout).toContain('Switchover: 1. fence the source: the broker refuses writes (TOPIC_WRITE_FENCED); transactions open at the fence get 30 s\n')
    expect(preview.stdout).toContain("2. drain until every destination log end equals the source's; not drained in 1 min: roll back, nothing lost\n")
    expect(preview.stdout).toMatch(/^ {2}✓ write-fence: /m)
    const json = JSON.parse((await expectExit(['--stop', '--type', 'planned', '--mirror', 'sw-planned', '--dry-run', '--json'], 0)).stdout) as { plan: { type: string; switchover: { fenceMethod: string } } }
    expect(json.plan).toMatchObject({ type: 'planned', switchover: { fenceMethod: 'broker' } })

    const run = await expectExit(['--stop', '--type', 'planned', '--mirror', 'sw-planned', '--confirm', 'sw-planned'], 0)
    const lines = run.stdout.split('\n').map((line) => line.replace(/^\d\d:\d\d:\d\d {2}/, ''))
    const said = (text: string) => lines.findIndex((line) => line.startsWith(text))
    const order = ['switchover  ◔ Fencing the source', 'switchover  source fenced ✓', 'switchover  ◔ Draining', 'switchover  drained ✓', 'switchover  ◔ Stopping', 'sw-orders-0  removeFetcher ✓', 'sw-orders-0  STOPPED', 'switchover  ✓ Switched over', 'switchover  records lost: 0 (measured at STOPPED)']
    for (const text of order) expect(said(text), `${text}\nin:\n${run.stdout}`).toBeGreaterThanOrEqual(0)
    expect(order.map(said)).toEqual([...order.map(said)].sort((a, b) => a - b))
    expect(run.stdout).toMatch(/^Operation \S+ succeeded: 1\/1 partitions STOPPED in .+; records lost: 0, writes refused on the source for .+$/m)
    // The old source stays fenced until a failback.
    const refused = await api('POST', `/clusters/${SOURCE}/topics/sw-orders/records`, { partition: 0, records: [{ key: 'late', value: '3' }] })
    expect(JSON.stringify(refused)).toContain('TOPIC_WRITE_FENCED')
  })

  it('--operations --cancel rolls back a switchover held in its fence; following it prints the reason and exits 1', async () => {
    await mirrorOf('sw-cancel', 'sw-payments')
    // A transaction left open on the source holds the fence phase for its grace (10 minutes here).
    const producer = await apiOk<{ producer: string }>('POST', `/clusters/${SOURCE}/producers`, { transactionalId: 'sw-open' }, 201)
    await apiOk('POST', `/clusters/${SOURCE}/producers/${producer.producer}/send`, { topic: 'sw-payments', partition: 0, records: [{ key: 'open', value: '1' }] })

    const following = start(['--stop', '--type', 'planned', '--mirror', 'sw-cancel', '--transaction-grace-ms', '600000', '--force', 'lag-threshold', '--confirm', 'sw-cancel'], { timeoutMs: 90_000 })
    const id = await waitFor('the switchover in its fence', async () => {
      const { operations } = await apiOk<{ operations: Array<{ id: string; switchover?: { phase: string; fencedAt: number | null } }> }>('GET', '/operations?mirror=sw-cancel')
      const running = operations.find((operation) => operation.switchover?.phase === 'fenceSource' && operation.switchover.fencedAt !== null)
      return running?.id
    })
    const cancelled = await expectExit(['--operations', '--cancel', id], 0)
    expect(cancelled.stdout).toBe(`Operation ${id} is rolling back: the source is unfenced and sw-cancel mirrors on (follow it with mirrorboard --operations --watch ${id})\n`)

    const run = await following.done
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1)
    expect(run.stdout).toMatch(/switchover {2}↶ Rolled back: cancelled by \S+; the source takes writes again and the mirror mirrors on, nothing lost\n/)
    expect(run.stdout).toMatch(new RegExp(`^Operation ${id} rolled back after .+: rolled back \\(cancelled by \\S+\\); nothing lost`, 'm'))
    expect(run.stderr).toContain(`operation ${id} rolled back: cancelled by `)

    const listed = await expectExit(['--operations', '--mirror', 'sw-cancel'], 0)
    expect(listed.stdout).toMatch(new RegExp(`^${id} +switchover +sw-cancel +rolled back +0/1 STOPPED `, 'm'))
    const watched = await expectExit(['--operations', '--watch', id], 1)
    expect(watched.stdout).toContain('switchover  ↶ Rolled back: cancelled by ')
    // A finished switchover cannot be cancelled again: the server's CONFLICT, exit 1.
    const again = await expectExit(['--operations', '--cancel', id], 1)
    expect(again.stderr).toContain('CONFLICT')
    await apiOk('POST', `/clusters/${SOURCE}/producers/${producer.producer}/abort`, {})
    await apiOk('POST', `/clusters/${SOURCE}/topics/sw-payments/records`, { partition: 0, records: [{ key: 'after', value: '2' }] })
    expect(everythingPrinted()).not.toContain(target.operatorToken)
  })
})
