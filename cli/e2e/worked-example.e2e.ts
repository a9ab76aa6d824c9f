import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WORKED_EXAMPLE, type WorkedExampleStep } from '@/lib/mirror/worked-example'
import { apiOk, everythingPrinted, expectExit, mirrorboard, target, waitFor } from './support'

/**
 * KIP-1279's worked example end to end through the command line, as the KIP's demo runs kafka-cluster-mirrors.sh:
 * `--create --mirror a-to-b --mirror-config a-to-b.properties`, `--start --topics`, `--describe` (its table checked
 * literally, its --json against the API's describe), `--pause`, `--stop` (the impact preview, a gate to force,
 * `--type unplanned --confirm`, every STOPPING step printed), the operation's report, and `--failback` (the
 * truncation preview, then the old source following the new one, both logs equal). The clusters and the source's
 * records are set up through the API: the command line has no produce (the KIP's tool has none either).
 *
 * Fixed names (a fresh server per run, server.ts): the literal outputs below hold them.
 */

const SOURCE = 'a'
const DESTINATION = 'b'
const MIRROR = 'a-to-b'
const TOPIC = WORKED_EXAMPLE.topic

let dir = ''
let producers: string[] = []

async function apply(step: WorkedExampleStep): Promise<void> {
  const base = `/clusters/${SOURCE}`
  if (step.kind === 'send') await apiOk('POST', `${base}/producers/${producers[step.producer]}/send`, { topic: TOPIC, partition: 0, records: step.records })
  else if (step.kind === 'commit') await apiOk('POST', `${base}/producers/${producers[step.producer]}/commit`)
  else await apiOk('POST', `${base}/topics/${TOPIC}/records`, { partition: 0, idempotent: false, records: step.records })
}

interface DescribeEntry {
  mirror: string
  topic: string
  partition: number
  sourceOffset: number
  destinationOffset: number
  lag: number
  state: string
  retryAttempt: number
  errorMessage: string | null
}

async function describeJson(mirror: string): Promise<DescribeEntry[]> {
  const run = await expectExit(['--describe', '--mirror', mirror, '--json'], 0)
  return JSON.parse(run.stdout) as DescribeEntry[]
}

interface RecordRow {
  offset: number
  type: string
  producerId: number | null
  key: string | null
  value: string | null
}

async function logOf(cluster: string): Promise<RecordRow[]> {
  const { records } = await apiOk<{ records: RecordRow[] }>('GET', `/clusters/${cluster}/topics/${TOPIC}/partitions/0/records?fromOffset=0&limit=100`)
  return records.map(({ offset, type, producerId, key, value }) => ({ offset, type, producerId, key, value }))
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mirrorboard-cli-kip-'))
  await apiOk('POST', '/clusters', { name: SOURCE, kind: 'embedded', brokers: 1, firstProducerId: WORKED_EXAMPLE.sourceFirstProducerId }, 201)
  await apiOk('POST', '/clusters', { name: DESTINATION, kind: 'embedded', brokers: 1, firstProducerId: WORKED_EXAMPLE.destinationFirstProducerId }, 201)
  await apiOk('POST', `/clusters/${SOURCE}/topics`, { name: TOPIC, partitions: 1 }, 201)
  producers = []
  for (const transactionalId of WORKED_EXAMPLE.transactionalIds) {
    producers.push((await apiOk<{ producer: string }>('POST', `/clusters/${SOURCE}/producers`, { transactionalId }, 201)).producer)
  }
  for (const step of WORKED_EXAMPLE.stepsBeforeMirroring) await apply(step)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("KIP-1279's worked example through mirrorboard", () => {
  let operation = ''

  it('--create with --mirror-config, then --start: the KIP demo\'s first two commands', async () => {
    const config = path.join(dir, 'a-to-b.properties')
    await writeFile(config, `# the KIP demo's file names the source by its connection; ours by the server's cluster names\nsource.cluster=${SOURCE}\ndestination.cluster=${DESTINATION}\ntopics.exclude=__.*,tmp\\..*\n`)
    const created = await expectExit(['--create', '--mirror', MIRROR, '--mirror-config', config], 0)
    expect(created.stdout).toBe(`Created mirror ${MIRROR}: ${SOURCE} → ${DESTINATION}. Add topics with mirrorboard --start --mirror ${MIRROR} --topics 'regex,…'\n`)
    const mirror = await apiOk<{ topics: string[]; config: Record<string, unknown> }>('GET', `/mirrors/${MIRROR}`)
    expect(mirror.topics).toEqual([])
    expect(mirror.config['topics.exclude']).toEqual(['__.*', 'tmp\\..*'])

    const started = await expectExit(['--start', '--topics', 'ord.*', '--mirror', MIRROR], 0)
    expect(started.stdout).toBe(`Started 1 topic of ${MIRROR}: ${TOPIC}\n`)
    expect((await apiOk<{ config: Record<string, unknown> }>('GET', `/mirrors/${MIRROR}`)).config['topics.include']).toEqual(['ord.*'])
  })

  it('--describe --json is the API\'s describe, in the KIP\'s array shape, once MIRRORING with lag 0', async () => {
    const entries = await waitFor('MIRRORING with lag 0', async () => {
      const now = await describeJson(MIRROR)
      return now[0]?.state === 'MIRRORING' && now[0].lag === 0 && now[0].destinationOffset === WORKED_EXAMPLE.mirroredLogEndOffset ? now : undefined
    })
    expect(entries).toEqual([{ mirror: MIRROR, topic: TOPIC, partition: 0, sourceOffset: 3, destinationOffset: 3, lag: 0, state: 'MIRRORING', retryAttempt: 0, errorMessage: null }])
    expect(Object.keys(entries[0] ?? {})).toEqual(['mirror', 'topic', 'partition', 'sourceOffset', 'destinationOffset', 'lag', 'state', 'retryAttempt', 'errorMessage'])
    expect(await describeJson(MIRROR)).toEqual(await apiOk('GET', `/mirrors/${MIRROR}/describe`))

    const table = await expectExit(['--describe', '--mirror', MIRROR], 0)
    expect(table.stdout).toBe(
      [
        'MIRROR  TOPIC   PARTITION  SOURCE-OFFSET  DESTINATION-OFFSET  LAG  STATE',
        'a-to-b  orders  0          3              3                   0    MIRRORING',
        '',
      ].join('\n'),
    )
    // Other files' mirrors share the server: the list is narrowed to this source.
    const list = await expectExit(['--list', '--source', SOURCE], 0)
    const { clusterId } = await apiOk<{ clusterId: string }>('GET', `/clusters/${SOURCE}`)
    expect(clusterId).toMatch(/\S/)
    expect(list.stdout).toBe(
      [
        `MIRROR  TOPICS  SOURCE-CLUSTER-ID${' '.repeat(Math.max(0, clusterId.length - 17))}  SOURCE-BOOTSTRAP-SERVER`,
        `a-to-b  1       ${clusterId.padEnd(17)}  -`,
        '',
      ].join('\n'),
    )
  })

  it('--pause leaves offsets unknown ("-") as the KIP\'s tool prints them; the source goes on meanwhile', async () => {
    const paused = await expectExit(['--pause', '--mirror', MIRROR], 0)
    expect(paused.stdout).toBe(`Paused 1 topic of ${MIRROR}: ${TOPIC}\n`)
    await waitFor('PAUSED', async () => ((await describeJson(MIRROR))[0]?.state === 'PAUSED' ? true : undefined))
    for (const step of WORKED_EXAMPLE.stepsAfterPause) await apply(step)
    const table = await expectExit(['--describe', '--mirror', MIRROR], 0)
    expect(table.stdout).toBe(
      [
        'MIRROR  TOPIC   PARTITION  SOURCE-OFFSET  DESTINATION-OFFSET  LAG  STATE',
        'a-to-b  orders  0          -              -                   -    PAUSED',
        '',
      ].join('\n'),
    )
    expect(await describeJson(MIRROR)).toEqual([{ mirror: MIRROR, topic: TOPIC, partition: 0, sourceOffset: -1, destinationOffset: -1, lag: -1, state: 'PAUSED', retryAttempt: 0, errorMessage: null }])
    const failed = await expectExit(['--describe', '--failed'], 0)
    expect(failed.stdout).toBe('MIRROR  TOPIC  PARTITION  RETRY  ERROR\n')
  })

  it('--stop --dry-run prints the impact preview: 3 records at risk, the two open transactions to abort', async () => {
    const run = await expectExit(['--stop', '--mirror', MIRROR, '--dry-run'], 0)
    expect(run.stdout).toContain(`Impact preview: unplanned failover of ${MIRROR}, 1 of 1 partition to stop`)
    expect(run.stdout).toMatch(/✕ lag-threshold \(warning\): /)
    expect(run.stdout).toMatch(/^orders +0 +PAUSED +3 +6 +3 +\S.* +pid 4001 epoch 0 from 0, pid 4002 epoch 0 from 2 +-$/m)
    expect(run.stdout).toMatch(/^Total: 3 records at risk \(the oldest .+ old\), 2 transactions to abort \(producers 4001, 4002\), 0 consumer groups behind\.$/m)
    const json = JSON.parse((await expectExit(['--stop', '--mirror', MIRROR, '--dry-run', '--json'], 0)).stdout) as { plan: { partitions: Array<{ recordsAtRisk: number }> } }
    expect(json.plan.partitions.map((partition) => partition.recordsAtRisk)).toEqual([3])
    expect((await describeJson(MIRROR))[0]?.state, 'a dry run changes nothing').toBe('PAUSED')
  })

  it('--stop refuses a failing warning gate not forced, and a script without --confirm, sending no failover', async () => {
    const unforced = await expectExit(['--stop', '--mirror', MIRROR, '--type', 'unplanned', '--confirm', MIRROR], 1)
    expect(unforced.stderr).toMatch(/^mirrorboard: INVALID_MIRROR_STATE: failing gates not forced: lag-threshold \(.+\); add --force lag-threshold to fail over anyway\n$/)
    const unconfirmed = await expectExit(['--stop', '--mirror', MIRROR, '--force', 'lag-threshold'], 2)
    expect(unconfirmed.stderr).toContain(`mirrorboard: the failover of ${MIRROR} needs --confirm ${MIRROR} when not run at a terminal`)
    expect(unconfirmed.stderr).toContain("Usage: mirrorboard --stop --mirror M [--topics 'regex,…']")
    const { operations } = await apiOk<{ operations: unknown[] }>('GET', `/operations?mirror=${MIRROR}`)
    expect(operations).toEqual([])
  })

  it('--stop --type unplanned --confirm fails over, printing every STOPPING step, and exits 0', async () => {
    const run = await expectExit(['--stop', '--mirror', MIRROR, '--type', 'unplanned', '--force', 'lag-threshold', '--confirm', MIRROR], 0)
    const id = /Failover of a-to-b accepted: operation (\S+)/.exec(run.stdout)?.[1]
    expect(id).toBeDefined()
    operation = id ?? ''
    const steps = run.stdout
      .split('\n')
      .filter((line) => /^\d\d:\d\d:\d\d {2}orders-0 {2}/.test(line))
      .map((line) => line.slice(10))
    expect(steps).toEqual(['orders-0  removeFetcher ✓', 'orders-0  persistPosition ✓', 'orders-0  bumpEpoch ✓', 'orders-0  abortTransactions ✓', 'orders-0  pidReset ✓', 'orders-0  STOPPED'])
    expect(run.stdout).toMatch(new RegExp(`^Operation ${operation} succeeded: 1/1 partitions STOPPED in .+$`, 'm'))
    expect(await logOf(DESTINATION)).toEqual(WORKED_EXAMPLE.destinationLogAfterFailover)
    const table = await expectExit(['--describe', '--mirror', MIRROR], 0)
    expect(table.stdout).toBe(
      [
        'MIRROR  TOPIC   PARTITION  SOURCE-OFFSET  DESTINATION-OFFSET  LAG  STATE',
        'a-to-b  orders  0          -              -                   -    STOPPED',
        '',
      ].join('\n'),
    )
  })

  it('--operations lists it, --watch of the ended operation exits 0, --report --format md is its post-mortem', async () => {
    const list = await expectExit(['--operations', '--mirror', MIRROR], 0)
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +KIND +MIRROR +STATUS +PARTITIONS +STARTED +TOOK +BY$/)
    expect(list.stdout).toMatch(new RegExp(`^${operation} +failover +a-to-b +succeeded +1/1 STOPPED +.+ token:operator$`, 'm'))
    const watch = await expectExit(['--operations', '--watch', operation], 0)
    expect(watch.stdout).toContain(`Operation ${operation}: failover of ${MIRROR}, 1 partition\n`)
    expect(watch.stdout).toMatch(new RegExp(`Operation ${operation} succeeded: 1/1 partitions STOPPED`))
    const report = await expectExit(['--operations', '--report', operation, '--format', 'md'], 0)
    expect(report.stdout).toMatch(/^# /)
    expect(report.stdout).toContain(MIRROR)
    const json = JSON.parse((await expectExit(['--operations', '--report', operation], 0)).stdout) as { operation: { id: string } }
    expect(json.operation.id).toBe(operation)
  })

  it('--failback --dry-run shows where the old source is cut; --failback --confirm makes it follow, exit 0', async () => {
    const preview = await expectExit(['--failback', '--mirror', MIRROR, '--dry-run'], 0)
    expect(preview.stdout).toContain(`Truncation preview: mirror ${MIRROR}-failback (${DESTINATION} → ${SOURCE}), 1 partitions`)
    expect(preview.stdout).toMatch(/^orders +0 +3 +3 +epoch \d+ offset 3 +-$/m)
    expect(preview.stdout).toContain(`Total: 3 records removed from ${SOURCE} in 1 partition.`)

    const wrong = await expectExit(['--failback', '--mirror', MIRROR, '--confirm', DESTINATION], 1)
    expect(wrong.stderr).toContain(`CONFIRMATION_REQUIRED: --confirm must name the old source ${SOURCE}`)
    const run = await expectExit(['--failback', '--mirror', MIRROR, '--confirm', SOURCE], 0)
    expect(run.stdout).toContain(`Created mirror ${MIRROR}-failback: ${DESTINATION} → ${SOURCE}`)
    expect(run.stdout).toContain(`Failback done: every partition of ${MIRROR}-failback MIRRORS; ${SOURCE} now follows ${DESTINATION}`)
    const reverse = await describeJson(`${MIRROR}-failback`)
    expect(reverse.map((entry) => entry.state)).toEqual(['MIRRORING'])
    await waitFor('both logs equal', async () => (JSON.stringify(await logOf(SOURCE)) === JSON.stringify(await logOf(DESTINATION)) ? true : undefined))
    expect(await logOf(SOURCE)).toEqual(WORKED_EXAMPLE.destinationLogAfterFailover)
  })

  it('--delete removes the failed-over mirror; --list then holds only the reverse one', async () => {
    const run = await expectExit(['--delete', '--mirror', MIRROR], 0)
    expect(run.stdout).toBe(`Deleted mirror ${MIRROR}\n`)
    expect((await expectExit(['--list', '--source', SOURCE], 0)).stdout).toBe('MIRROR  TOPICS  SOURCE-CLUSTER-ID  SOURCE-BOOTSTRAP-SERVER\n')
    const list = JSON.parse((await expectExit(['--list', '--json'], 0)).stdout) as Array<{ mirror: string; sourceCluster: string; destinationCluster: string }>
    const ours = list.filter((entry) => [SOURCE, DESTINATION].includes(entry.sourceCluster))
    expect(ours.map((entry) => [entry.mirror, entry.sourceCluster, entry.destinationCluster])).toEqual([[`${MIRROR}-failback`, DESTINATION, SOURCE]])
  })

  it('printed no token in any of it', async () => {
    const everything = everythingPrinted()
    expect(everything.length).toBeGreaterThan(1000)
    expect(everything).not.toContain(target.operatorToken)
    expect(everything).not.toContain(target.viewerToken)
    // And the command line answers as it did: a run after all of the above still works.
    expect((await mirrorboard(['--version'])).code).toBe(0)
  })
})
