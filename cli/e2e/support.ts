// What every file of the command line's suite needs: the server (server.ts), the `mirrorboard` bin run as a user
// runs it (a process of its own, `node cli/bin.js`, the token in MIRRORBOARD_TOKEN), and the HTTP API called
// directly, for setting up what the command line has no action for and for comparing its output with the API's.
import { spawn, type ChildProcess } from 'node:child_process'
import type { Readable } from 'node:stream'
import path from 'node:path'
import { expect, inject } from 'vitest'

export const target = inject('cli')
const root = path.resolve(import.meta.dirname, '../..')
export const BIN = path.join(root, 'cli/bin.js')

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  /** The role whose token MIRRORBOARD_TOKEN holds (operator by default); null: none. */
  readonly as?: 'operator' | 'viewer' | null
  /** MIRRORBOARD_URL (the suite's server by default). */
  readonly url?: string
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  readonly timeoutMs?: number
}

/** Everything every run printed, so a file can check at its end that no token ever showed. */
const printed: string[] = []

export function tokenOf(role: 'operator' | 'viewer'): string {
  return role === 'operator' ? target.operatorToken : target.viewerToken
}

/** The environment of a run: no inherited MIRRORBOARD_* or colour settings, so what a test sets is what counts. */
function runEnv(options: RunOptions): Record<string, string | undefined> {
  const role = options.as === undefined ? 'operator' : options.as
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MIRRORBOARD_URL: options.url ?? target.url,
    ...(role === null ? {} : { MIRRORBOARD_TOKEN: tokenOf(role) }),
    ...options.env,
  }
}

/** Starts `mirrorboard ARGS` and returns the process, for a test that looks at it while it runs. */
export function start(args: readonly string[], options: RunOptions = {}): { process: ChildProcess; done: Promise<Run> } {
  const child: ChildProcess & { stdout: Readable; stderr: Readable } = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? root, env: runEnv(options) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')))
  const timeoutMs = options.timeoutMs ?? 60_000
  const done = new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`mirrorboard ${args.join(' ')} did not end within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code: number | null) => {
      clearTimeout(timer)
      printed.push(stdout, stderr)
      resolve({ code, stdout, stderr })
    })
  })
  return { process: child, done }
}

export function mirrorboard(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return start(args, options).done
}

/** Runs it and expects `code`, showing what it printed when it is another. */
export async function expectExit(args: readonly string[], code: number, options: RunOptions = {}): Promise<Run> {
  const run = await mirrorboard(args, options)
  expect(run.code, `mirrorboard ${args.join(' ')}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(code)
  return run
}

/** Every output of this file's runs so far, for the check that no token is in any of them. */
export function everythingPrinted(): string {
  return printed.join('\n')
}

export interface ApiAnswer<T> {
  status: number
  body: T
}

/** The HTTP API itself, as the operator (or viewer). */
export async function api<T = unknown>(method: string, apiPath: string, body?: unknown, as: 'operator' | 'viewer' = 'operator'): Promise<ApiAnswer<T>> {
  const response = await fetch(`${target.url}/api/v1${apiPath}`, {
    method,
    headers: { authorization: `Bearer ${tokenOf(as)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T }
}

/** The API call, expected to answer `status`. */
export async function apiOk<T = unknown>(method: string, apiPath: string, body?: unknown, status = 200): Promise<T> {
  const answer = await api<T>(method, apiPath, body)
  expect(answer.status, `${method} ${apiPath}: ${JSON.stringify(answer.body)}`).toBe(status)
  return answer.body
}

/** Polls until `check` returns a value that is not undefined (or the time is up). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A shell word, single-quoted. */
function quoted(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`
}

/**
 * `mirrorboard ARGS` at a terminal: run under util-linux `script`, which gives it a pseudo-terminal for stdin and
 * stdout (what a person at a shell has), so it asks for the typed confirmation and draws colours and progress bars.
 * `typed` is sent once `prompt` shows. What it printed comes back as the terminal showed it (\r\n line ends).
 */
export async function inTerminal(args: readonly string[], options: RunOptions & { prompt?: string; typed?: string } = {}): Promise<Run> {
  const command = [process.execPath, BIN, ...args].map(quoted).join(' ')
  const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: options.cwd ?? root, env: { ...(runEnv(options) as NodeJS.ProcessEnv), TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let sent = false
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    if (!sent && options.prompt !== undefined && stdout.includes(options.prompt)) {
      sent = true
      child.stdin.write(`${options.typed ?? ''}\r`)
    }
  })
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')))
  const timeoutMs = options.timeoutMs ?? 60_000
  return new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`mirrorboard ${args.join(' ')} (at a terminal) did not end within ${timeoutMs} ms\noutput: ${stdout}`))
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code: number | null) => {
      clearTimeout(timer)
      printed.push(stdout, stderr)
      resolve({ code, stdout, stderr })
    })
  })
}
