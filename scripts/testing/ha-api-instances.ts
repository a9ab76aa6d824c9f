// The HA integration tests' instances (server/ha/*.integration.test.ts): each a child process serving the API on
// loopback (ha-api-child.ts), one group and secret key, a data directory of its own, its output kept for the
// assertion messages; and a call to one of them as a client would make it.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { TEST_TOKENS } from '@/server/testing/test-runtime'
import { freePort } from './production-server'

const childScript = path.join(import.meta.dirname, 'ha-api-child.ts')

export interface ApiInstance {
  id: string
  url: string
  process: ChildProcess
  output: string
}

export class ApiInstances {
  readonly instances: ApiInstance[] = []
  private readonly dirs: string[] = []

  constructor(private readonly settings: { group: string; secretKey: string; sessionTimeoutMs: number; dirPrefix: string }) {}

  tempDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), this.settings.dirPrefix))
    this.dirs.push(dir)
    return dir
  }

  /** An instance of the group on the control cluster at `bootstrap`; `env` adds to (or overrides) its environment. */
  async start(id: string, bootstrap: string, env: Record<string, string> = {}): Promise<ApiInstance> {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, this.tempDir(), String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        MIRRORBOARD_CONTROL_BOOTSTRAP: bootstrap,
        MIRRORBOARD_INSTANCE_ID: id,
        MIRRORBOARD_CONTROL_GROUP: this.settings.group,
        MIRRORBOARD_SECRET_KEY: this.settings.secretKey,
        MIRRORBOARD_SESSION_TIMEOUT_MS: String(this.settings.sessionTimeoutMs),
        MIRRORBOARD_ADVERTISED_URL: url,
        ...env,
      },
    })
    const instance: ApiInstance = { id, url, process: child, output: '' }
    child.stdout!.on('data', (chunk: Buffer) => (instance.output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (instance.output += chunk.toString()))
    this.instances.push(instance)
    return instance
  }

  /** SIGKILLs every instance still running and removes every data directory. */
  stopAll(): void {
    for (const instance of this.instances) if (instance.process.exitCode === null && instance.process.signalCode === null) instance.process.kill('SIGKILL')
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true })
  }
}

export type ApiAnswer = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string; details?: Record<string, unknown> } }; headers: Headers }

/** One API call as a client makes it: the operator token unless `token` says otherwise ('' for none). */
export async function callInstance(instance: ApiInstance, pathname: string, options: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<ApiAnswer> {
  const response = await fetch(`${instance.url}/api/v1${pathname}`, {
    method: options.method ?? 'GET',
    headers: {
      ...(options.token === '' ? {} : { authorization: `Bearer ${options.token ?? TEST_TOKENS.operator}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const text = await response.text()
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as ApiAnswer['body'], headers: response.headers }
}
