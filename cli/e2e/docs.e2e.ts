import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, target, tokenOf } from './support'

/**
 * Every command of docs/cli.md and of docs/runbook.md, in document order, against the suite's server, as a reader
 * would paste them into a shell with MIRRORBOARD_URL and MIRRORBOARD_TOKEN set (`mirrorboard` on the PATH,
 * VIEWER_TOKEN for a refusal example; the runbook's MIRROR and SOURCE naming mirrors set up here first). Each
 * ```bash block is marked by the comment above it: `<!-- exit: 0 -->`, optionally `; until: <text>` (run again
 * until the output holds each text, for steps that wait for mirroring) and `; mirror: <name>` (the runbook's
 * MIRROR for that block, where a procedure is shown on another mirror). A block runs under `set -e`.
 */

const MARKED = /<!-- exit: (\d)((?:; (?:until|mirror): [^;]+?)*) -->\n```bash\n([\s\S]*?)```/g
const BLOCK = /```bash\n([\s\S]*?)```/g

interface Example {
  exit: number
  until: string[]
  mirror: string | null
  command: string
}

function examples(markdown: string): Example[] {
  return [...markdown.matchAll(MARKED)].map((match) => {
    const fields = (match[2] ?? '').split(';').map((field) => field.trim()).filter((field) => field !== '')
    const values = (name: string) => fields.filter((field) => field.startsWith(`${name}: `)).map((field) => field.slice(name.length + 2).trim())
    return { exit: Number(match[1]), until: values('until'), mirror: values('mirror')[0] ?? null, command: (match[3] ?? '').trim() }
  })
}

const root = path.resolve(import.meta.dirname, '../..')
const guide = readFileSync(path.join(root, 'docs/cli.md'), 'utf8')
const runbook = readFileSync(path.join(root, 'docs/runbook.md'), 'utf8')
let dir = ''
const outputs: string[] = []

function shell(command: string, env: Record<string, string | undefined>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', `set -eo pipefail\n${command}`], { cwd: dir, env: env as NodeJS.ProcessEnv, maxBuffer: 16 << 20, timeout: 110_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
      resolve({ code, output: `${stdout}${stderr}` })
    })
  })
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mirrorboard-cli-docs-'))
  // `mirrorboard` on the PATH, as `npm install -g` puts it there.
  await mkdir(path.join(dir, 'bin'))
  await writeFile(path.join(dir, 'bin/mirrorboard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  await chmod(path.join(dir, 'bin/mirrorboard'), 0o755)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function environment(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    MIRRORBOARD_URL: target.url,
    MIRRORBOARD_TOKEN: tokenOf('operator'),
    VIEWER_TOKEN: tokenOf('viewer'),
    ...extra,
  }
}

/** Runs every marked block in order, each until it ends with its exit code (and shows its `until` texts). */
async function runAll(markdown: string, env: (example: Example) => Record<string, string | undefined>): Promise<void> {
  for (const example of examples(markdown)) {
    const deadline = Date.now() + 60_000
    for (;;) {
      const { code, output } = await shell(example.command, env(example))
      outputs.push(output)
      const waiting = example.until.filter((text) => !output.includes(text))
      if (code === example.exit && waiting.length === 0) break
      if (Date.now() > deadline || (code !== example.exit && example.until.length === 0)) {
        expect({ code, waiting }, `${example.command}\nprinted:\n${output.slice(0, 4000)}`).toEqual({ code: example.exit, waiting: [] })
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
}

describe('docs/cli.md', () => {
  it('marks every ```bash block with the exit code it documents', () => {
    const blocks = [...guide.matchAll(BLOCK)]
    expect(blocks.length).toBeGreaterThan(20)
    expect(examples(guide).length, 'a ```bash block has no <!-- exit: --> comment').toBe(blocks.length)
  })

  it('every command ends with the exit code it documents', async () => {
    await runAll(guide, () => environment())
  })
})

describe('docs/runbook.md', () => {
  const SOURCE = 'rb-src'
  const DESTINATION = 'rb-dst'

  async function call(method: string, apiPath: string, body: unknown, status: number): Promise<void> {
    const response = await fetch(`${target.url}/api/v1${apiPath}`, {
      method,
      headers: { authorization: `Bearer ${tokenOf('operator')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status, `${method} ${apiPath}: ${await response.text()}`).toBe(status)
  }

  it('marks every ```bash block with the exit code it documents, and every one runs mirrorboard', () => {
    const blocks = [...runbook.matchAll(BLOCK)]
    expect(blocks.length).toBeGreaterThan(10)
    expect(examples(runbook).length, 'a ```bash block has no <!-- exit: --> comment').toBe(blocks.length)
    for (const example of examples(runbook)) expect(example.command).toMatch(/^(\S+=\$\()?mirrorboard /)
  })

  it("every command ends with the exit code it documents, on the procedures' mirrors", async () => {
    // A planned switchover and a failback on rb-planned; a disaster failover on rb-disaster. Records on both.
    await call('POST', '/clusters', { name: SOURCE, kind: 'embedded', brokers: 1 }, 201)
    await call('POST', '/clusters', { name: DESTINATION, kind: 'embedded', brokers: 1 }, 201)
    for (const topic of ['rb-orders', 'rb-payments']) {
      await call('POST', `/clusters/${SOURCE}/topics`, { name: topic, partitions: 2 }, 201)
      for (const partition of [0, 1]) await call('POST', `/clusters/${SOURCE}/topics/${topic}/records`, { partition, records: [{ key: 'k', value: 'v' }] }, 200)
    }
    await call('POST', '/mirrors', { name: 'rb-planned', sourceCluster: SOURCE, destinationCluster: DESTINATION, topics: ['rb-orders'] }, 201)
    await call('POST', '/mirrors', { name: 'rb-disaster', sourceCluster: SOURCE, destinationCluster: DESTINATION, topics: ['rb-payments'] }, 201)
    await runAll(runbook, (example) => environment({ MIRROR: example.mirror ?? 'rb-planned', SOURCE }))
  })

  it('printed no token', () => {
    expect(outputs.join('\n')).not.toContain(tokenOf('operator'))
    expect(outputs.join('\n')).not.toContain(tokenOf('viewer'))
  })
})
