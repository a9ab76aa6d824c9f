import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, target, tokenOf } from './support'

/**
 * Every command of docs/cli.md, in document order, against the suite's server, as a reader would paste them into
 * a shell with MIRRORBOARD_URL and MIRRORBOARD_TOKEN set (`mirrorboard` on the PATH, VIEWER_TOKEN for the refusal
 * example). Each ```bash block is marked by the comment above it: `<!-- exit: 0 -->`, optionally `; until: <text>`
 * (run again until the output holds each text, for steps that wait for mirroring). A block runs under `set -e`.
 */

const MARKED = /<!-- exit: (\d)((?:; until: [^;]+?)*) -->\n```bash\n([\s\S]*?)```/g
const BLOCK = /```bash\n([\s\S]*?)```/g

interface Example {
  exit: number
  until: string[]
  command: string
}

function examples(markdown: string): Example[] {
  return [...markdown.matchAll(MARKED)].map((match) => ({
    exit: Number(match[1]),
    until: (match[2] ?? '').split('; until: ').map((text) => text.trim()).filter((text) => text !== ''),
    command: (match[3] ?? '').trim(),
  }))
}

const root = path.resolve(import.meta.dirname, '../..')
const markdown = readFileSync(path.join(root, 'docs/cli.md'), 'utf8')
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

describe('docs/cli.md', () => {
  it('marks every ```bash block with the exit code it documents', () => {
    const blocks = [...markdown.matchAll(BLOCK)]
    expect(blocks.length).toBeGreaterThan(20)
    expect(examples(markdown).length, 'a ```bash block has no <!-- exit: --> comment').toBe(blocks.length)
  })

  it('every command ends with the exit code it documents', async () => {
    const env: Record<string, string | undefined> = {
      PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME,
      MIRRORBOARD_URL: target.url,
      MIRRORBOARD_TOKEN: tokenOf('operator'),
      VIEWER_TOKEN: tokenOf('viewer'),
    }
    for (const example of examples(markdown)) {
      const deadline = Date.now() + 60_000
      for (;;) {
        const { code, output } = await shell(example.command, env)
        outputs.push(output)
        const waiting = example.until.filter((text) => !output.includes(text))
        if (code === example.exit && waiting.length === 0) break
        if (Date.now() > deadline || (code !== example.exit && example.until.length === 0)) {
          expect({ code, waiting }, `${example.command}\nprinted:\n${output.slice(0, 4000)}`).toEqual({ code: example.exit, waiting: [] })
        }
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
    expect(outputs.join('\n')).not.toContain(tokenOf('operator'))
    expect(outputs.join('\n')).not.toContain(tokenOf('viewer'))
  })
})
