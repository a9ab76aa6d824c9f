import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { apiOk, everythingPrinted, expectExit, inTerminal, target, waitFor } from './support'

/**
 * Every other action against the running server, as an operator uses them around the KIP's: `--clusters`
 * (list, add, remove), `--start --exclude`, `--pause`/`--resume`/`--recover` by pattern, `--verify`, `--drill`
 * (and its history and report), `--alerts`, `--audit` (what the command line did, by whom), `--output yaml`,
 * `--version`, `--completion`; and at a terminal (util-linux `script`): the failover's typed confirmation, the
 * progress bar, colours, and NO_COLOR.
 */

const run = promisify(execFile)
const SOURCE = 'east'
const DESTINATION = 'west'
const MIRROR = 'pay'
// Standard ANSI foreground colours, as cli/format.ts writes them; the progress bar's own codes are not colours.
const COLOUR = /\u001b\[3[1-6]m/

let dir = ''

interface DescribeEntry {
  partition: number
  state: string
  lag: number
}

async function describeJson(): Promise<DescribeEntry[]> {
  return JSON.parse((await expectExit(['--describe', '--mirror', MIRROR, '--json'], 0)).stdout) as DescribeEntry[]
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mirrorboard-cli-actions-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the clusters and a mirror set up with mirrorboard alone', () => {
  it('--clusters add (embedded), --clusters lists them, --clusters remove one no mirror uses', async () => {
    for (const name of [SOURCE, DESTINATION, 'spare']) {
      const added = await expectExit(['--clusters', 'add', '--cluster', name, '--kind', 'embedded', '--brokers', '1'], 0)
      expect(added.stdout).toMatch(new RegExp(`^Added cluster ${name} \\(embedded, id \\S+, 1 broker\\)\\n$`))
    }
    const table = await expectExit(['--clusters'], 0)
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +KIND +CLUSTER-ID +BROKERS +TOPICS +STATUS +BOOTSTRAP-SERVERS$/)
    expect(table.stdout).toMatch(/^east +embedded +\S+ +1\/1 alive +0 +ok +-$/m)
    const removed = await expectExit(['--clusters', 'remove', '--cluster', 'spare'], 0)
    expect(removed.stdout).toBe('Removed cluster spare\n')
    const names = (JSON.parse((await expectExit(['--clusters', 'list', '--json'], 0)).stdout) as Array<{ name: string }>).map((cluster) => cluster.name)
    expect(names).toContain(SOURCE)
    expect(names).not.toContain('spare')
  })

  it('--create --source --destination, then --start --topics with --exclude: the excluded topic is left out', async () => {
    for (const [topic, partitions] of [['payments', 2], ['payments.tmp', 1], ['audit', 1]] as const) {
      await apiOk('POST', `/clusters/${SOURCE}/topics`, { name: topic, partitions }, 201)
    }
    for (const partition of [0, 1]) {
      await apiOk('POST', `/clusters/${SOURCE}/topics/payments/records`, { partition, records: [{ key: 'k', value: `v${partition}` }, { key: 'k', value: 'w' }] })
    }
    await expectExit(['--create', '--mirror', MIRROR, '--source', SOURCE, '--destination', DESTINATION], 0)
    const started = await expectExit(['--start', '--mirror', MIRROR, '--topics', 'pay.*', '--exclude', 'payments\\.tmp'], 0)
    expect(started.stdout).toBe(`topics.exclude of ${MIRROR}: __.*, payments\\.tmp\nStarted 1 topic of ${MIRROR}: payments\n`)
    await waitFor('MIRRORING with lag 0', async () => {
      const entries = await describeJson()
      return entries.length === 2 && entries.every((entry) => entry.state === 'MIRRORING' && entry.lag === 0) ? true : undefined
    })
  })

  it('--pause and --resume by pattern; --recover with nothing FAILED is refused', async () => {
    expect((await expectExit(['--pause', '--mirror', MIRROR, '--topics', 'pay.*'], 0)).stdout).toBe(`Paused 1 topic of ${MIRROR}: payments\n`)
    await waitFor('PAUSED', async () => ((await describeJson()).every((entry) => entry.state === 'PAUSED') ? true : undefined))
    expect((await expectExit(['--resume', '--mirror', MIRROR], 0)).stdout).toBe(`Resumed 1 topic of ${MIRROR}: payments\n`)
    await waitFor('MIRRORING again', async () => ((await describeJson()).every((entry) => entry.state === 'MIRRORING') ? true : undefined))
    const recover = await expectExit(['--recover', '--mirror', MIRROR], 1)
    expect(recover.stderr).toBe(`mirrorboard: INVALID_MIRROR_STATE: no partition of mirror ${MIRROR} is in FAILED; payments-0 is MIRRORING, payments-1 is MIRRORING\n`)
  })
})

describe("ours beyond the KIP: verify, drill, alerts, audit", () => {
  it('--verify compares source and destination and exits 0 when identical', async () => {
    const verified = await expectExit(['--verify', '--mirror', MIRROR], 0)
    expect(verified.stdout).toMatch(/^Verification v-\S+ of pay started\n/)
    expect(verified.stdout).toMatch(/^Verification v-\S+ of pay: passed$/m)
    expect(verified.stdout).toMatch(/^payments +0 +0-2 +bytes +identical +0 /m)
    expect(verified.stdout).toMatch(/^payments +1 +0-2 +bytes +identical +0 /m)
  })

  it('--drill rehearses the failover on a copy, follows it and exits 0; --history and --report show it; the mirror keeps MIRRORING', async () => {
    const drilled = await expectExit(['--drill', '--mirror', MIRROR], 0, { timeoutMs: 110_000 })
    const id = /^Drill (d-\S+) of pay started$/m.exec(drilled.stdout)?.[1] ?? ''
    expect(id).not.toBe('')
    expect(drilled.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${id}: succeeded$`, 'm'))
    expect(drilled.stdout).toMatch(new RegExp(`^Drill ${id} of pay: ✓ succeeded$`, 'm'))
    expect(drilled.stdout).toMatch(/^RTO .+ · RPO \d+ records?/m)
    expect(drilled.stdout).toMatch(/^markers-as-planned +✓ passed +Markers where the plan said: /m)
    expect(drilled.stdout).toMatch(/^payments +0 +2 +MIRROR_PID_RESET@2$/m)
    expect(drilled.stdout).not.toMatch(/✕ failed/)
    expect((await describeJson()).map((entry) => entry.state)).toEqual(['MIRRORING', 'MIRRORING'])

    const history = await expectExit(['--drill', '--mirror', MIRROR, '--history'], 0)
    expect(history.stdout).toMatch(/^No drillIntervalDays objective for pay; last success .+\.$/m)
    expect(history.stdout).toMatch(new RegExp(`^${id} +succeeded +.+ +7/7 passed +token:operator$`, 'm'))
    const report = await expectExit(['--drill', '--report', id, '--format', 'md'], 0)
    expect(report.stdout).toMatch(/^# /)
    expect(report.stdout).toContain(id)
    const json = JSON.parse((await expectExit(['--drill', '--id', id, '--json'], 0)).stdout) as { id: string; status: string }
    expect([json.id, json.status]).toEqual([id, 'succeeded'])
    const both = await expectExit(['--drill', '--id', id, '--history'], 2)
    expect(both.stderr).toContain('--id and --history are different things: one at a time')
  })

  it('--alerts lists the rules\' alerts (--json an array), --audit what this command line did and as whom', async () => {
    const alerts = await expectExit(['--alerts'], 0)
    expect(alerts.stdout.split('\n')[0]).toMatch(/^STATE +SEVERITY +RULE +MIRROR +WHERE +FOR +SUMMARY$/)
    expect(Array.isArray(JSON.parse((await expectExit(['--alerts', '--state', 'firing', '--json'], 0)).stdout))).toBe(true)
    const audit = await expectExit(['--audit', '--action', 'mirror.topics.pause', '--limit', '5'], 0)
    expect(audit.stdout.split('\n')[0]).toMatch(/^ID +AT +ACTOR +ACTION +TARGET +OUTCOME +DETAIL$/)
    expect(audit.stdout).toMatch(/^\d+ +.+ +token:operator +mirror\.topics\.pause +\/mirrors\/pay\/topics\/pause +ok +-$/m)
    const entries = JSON.parse((await expectExit(['--audit', '--action', 'cluster.delete', '--json'], 0)).stdout) as Array<{ target: string; actor: string; outcome: string }>
    expect(entries.find((entry) => entry.target === '/clusters/spare')).toMatchObject({ actor: 'token:operator', outcome: 'ok' })
    const bad = await expectExit(['--audit', '--from', 'yesterday'], 2)
    expect(bad.stderr).toContain('--from must be a time')
  })
})

describe('output for machines and shells', () => {
  it('--output yaml is the --json result as YAML; --json and --output yaml together are refused', async () => {
    const yaml = parseYaml((await expectExit(['--list', '--output', 'yaml'], 0)).stdout) as unknown
    const json = JSON.parse((await expectExit(['--list', '--json'], 0)).stdout) as unknown
    expect(yaml).toEqual(json)
    await expectExit(['--list', '--json', '--output', 'yaml'], 2)
  })

  it("--version says this command line's version and the server's", async () => {
    const { version } = await apiOk<{ version: string }>('GET', '/health')
    const shown = await expectExit(['--version'], 0)
    expect(shown.stdout).toBe(`mirrorboard: 0.1.0\nserver:      ${target.url}, version ${version} (ok)\n`)
  })

  it('--completion bash is a script bash loads, completing the actions', async () => {
    const script = (await expectExit(['--completion', 'bash'], 0)).stdout
    await writeFile(path.join(dir, 'complete.bash'), script)
    const { stdout } = await run('bash', ['-c', 'source complete.bash; COMP_WORDS=(mirrorboard --dr); COMP_CWORD=1; _mirrorboard; echo "${COMPREPLY[@]}"; complete -p mirrorboard'], { cwd: dir })
    expect(stdout).toBe('--drill\ncomplete -F _mirrorboard mirrorboard\n')
    expect((await expectExit(['--completion', 'zsh'], 0)).stdout).toMatch(/^#compdef mirrorboard\n/)
  })
})

describe('at a terminal', () => {
  it('colours states, and none with NO_COLOR', async () => {
    const coloured = await inTerminal(['--describe', '--mirror', MIRROR])
    expect(coloured.code).toBe(0)
    expect(coloured.stdout).toMatch(COLOUR)
    const plain = await inTerminal(['--describe', '--mirror', MIRROR], { env: { NO_COLOR: '1' } })
    expect(plain.code).toBe(0)
    expect(plain.stdout).not.toMatch(/\u001b\[/)
    expect(plain.stdout).toMatch(/^pay +payments +0 +2 +2 +0 +MIRRORING\r$/m)
  })

  it('a failover asks for the mirror\'s name after the preview; a wrong name does nothing (exit 1)', async () => {
    const refused = await inTerminal(['--stop', '--mirror', MIRROR], { prompt: `Type ${MIRROR} to confirm the failover of ${MIRROR}: `, typed: 'paid' })
    expect(refused.code, refused.stdout).toBe(1)
    expect(refused.stdout).toContain(`Impact preview: unplanned failover of ${MIRROR}, 2 of 2 partitions to stop`)
    expect(refused.stdout.indexOf('Impact preview')).toBeLessThan(refused.stdout.indexOf(`Type ${MIRROR} to confirm`))
    expect(refused.stdout).toContain(`mirrorboard: CONFIRMATION_REQUIRED: "paid" was typed, not ${MIRROR}: nothing was done`)
    expect((await apiOk<{ operations: unknown[] }>('GET', `/operations?mirror=${MIRROR}`)).operations).toEqual([])
  })

  // The progress bar is drawn only while the operation runs, and two partitions stop in about 150 ms, before the
  // command line has read the operation: the bar is checked in cli/operation-watch.test.ts, not here.
  it('the typed name fails over, every step in colour, and exits 0', async () => {
    const done = await inTerminal(['--stop', '--mirror', MIRROR], { prompt: `Type ${MIRROR} to confirm the failover of ${MIRROR}: `, typed: MIRROR })
    expect(done.code, done.stdout).toBe(0)
    expect(done.stdout).toMatch(/^Failover of pay accepted: operation \S+\r$/m)
    expect(done.stdout).toMatch(/Operation \S+ \u001b\[32msucceeded\u001b\[0m: 2\/2 partitions STOPPED in /)
    for (const partition of [0, 1]) expect(done.stdout).toMatch(new RegExp(`payments-${partition}  pidReset \u001b\\[32m✓`))
    expect((await describeJson()).map((entry) => entry.state)).toEqual(['STOPPED', 'STOPPED'])
  })

  it('printed no token anywhere in this file', () => {
    expect(everythingPrinted()).not.toContain(target.operatorToken)
    expect(everythingPrinted()).not.toContain(target.viewerToken)
  })
})
