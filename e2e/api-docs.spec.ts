import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { expect, test } from '@playwright/test'
import { operatorToken, viewerToken } from './support/http'

/**
 * Every curl example of docs/api.md, in document order, against the test server, as a reader would paste
 * them (with $MB, $TOKEN and $VIEWER set as the page says). Each example is marked by the comment above it:
 * `<!-- status: 201 -->`, optionally `; until: <text>` (repeated until the answer contains each text, for
 * steps that wait for mirroring or a failover to finish).
 */

const run = promisify(execFile)
const MARKED = /<!-- status: (\d{3})((?:; until: [^;]+?)*) -->\n```bash\n([\s\S]*?)```/g
const BLOCK = /```bash\n([\s\S]*?)```/g

interface Example {
  status: number
  until: string[]
  command: string
}

function examples(markdown: string): Example[] {
  return [...markdown.matchAll(MARKED)].map((match) => ({
    status: Number(match[1]),
    until: (match[2] ?? '').split('; until: ').map((text) => text.trim()).filter((text) => text !== ''),
    command: (match[3] ?? '').replace(/\\\n\s*/g, ' ').trim(),
  }))
}

const markdown = readFileSync(path.join(__dirname, '..', 'docs', 'api.md'), 'utf8')

test('every curl example of docs/api.md is marked with the status it documents', () => {
  const withCurl = [...markdown.matchAll(BLOCK)].filter((match) => /\bcurl\b/.test(match[1] ?? ''))
  expect(withCurl.length).toBeGreaterThan(20)
  expect(examples(markdown).length, 'a ```bash block with curl has no <!-- status: --> comment').toBe(withCurl.length)
  for (const example of examples(markdown)) expect(example.command, 'one curl command an example').toMatch(/^curl [^\n]*$/)
})

test('every curl example of docs/api.md gets the status it documents', async ({ baseURL }) => {
  test.setTimeout(240_000)
  const env = { ...process.env, MB: baseURL ?? '', TOKEN: operatorToken, VIEWER: viewerToken }
  for (const example of examples(markdown)) {
    const deadline = Date.now() + 60_000
    for (;;) {
      // The status on a line of its own after the body; curl's exit code is not checked (--max-time ends the stream example).
      const { stdout } = await run('bash', ['-c', `${example.command} -w '\\n%{http_code}'`], { env, maxBuffer: 64 << 20 }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
      )
      const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1))
      const body = stdout.slice(0, stdout.lastIndexOf('\n'))
      const waiting = example.until.filter((text) => !body.includes(text))
      if (status === example.status && waiting.length === 0) break
      if (Date.now() > deadline || (status !== example.status && example.until.length === 0)) {
        // The answer goes into the message: as a field matched by expect.any(String) it never showed in a failure.
        expect({ status, waiting }, `${example.command}\nanswered: ${body.slice(0, 2000)}`).toEqual({ status: example.status, waiting: [] })
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
})
