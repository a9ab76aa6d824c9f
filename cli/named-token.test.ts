import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SERVED_ENDPOINTS } from '@/lib/api/endpoints'
import type { Runtime } from '@/server/runtime'
import { embeddedMirrors } from '@/server/testing/embedded-mirrors'
import { openTestRuntime } from '@/server/testing/test-runtime'
import { main } from './main'
import { memoryIo } from './testing/memory-io'

/**
 * The command line with a named API token (issue #39), unchanged: it sends MIRRORBOARD_TOKEN as a bearer token,
 * and the server's route handlers (called in-process through the catalog, as Next.js would route them) answer
 * as that token within its scopes: --list shows the mirrors its scope names, --pause works there and exits 1 with
 * FORBIDDEN elsewhere, and the audit log names the token.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-cli-token-fallback-${process.pid}`)

const root = path.resolve(__dirname, '..')
let dataDir: string
let runtime: Runtime
let secret = ''

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>

/** fetch for the command line: the catalog entry whose method and path template match, its route file's handler. */
async function inProcessFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init)
  const { pathname } = new URL(request.url)
  for (const endpoint of SERVED_ENDPOINTS) {
    if (endpoint.method !== request.method) continue
    const names: string[] = []
    const pattern = new RegExp(`^${endpoint.path.replace(/\{([^}]+)\}/g, (_match, name: string) => (names.push(name), '([^/]+)'))}$`)
    const match = pattern.exec(pathname)
    if (match === null) continue
    const params = Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]))
    const module = (await import(/* @vite-ignore */ path.join(root, 'app', endpoint.path.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts'))) as Record<string, Handler>
    const handler = module[endpoint.method] as Handler
    return handler(request, { params: Promise.resolve(params) })
  }
  return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${pathname}` } }), { status: 404 })
}

async function run(args: string[]) {
  const io = memoryIo({ env: { MIRRORBOARD_URL: 'http://127.0.0.1:3000', MIRRORBOARD_TOKEN: secret } })
  const code = await main(args, io, { fetch: inProcessFetch as typeof fetch })
  return { code, out: io.out(), err: io.err() }
}

describe('the command line with a named API token', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-cli-token-'))
    runtime = await openTestRuntime(dataDir, { demo: false })
    await embeddedMirrors(runtime, { source: 'east', destination: 'west', mirrors: { 'orders-to-eu-west': 'orders', 'billing-dr': 'billing' } })
    const created = await runtime.auth.apiTokens?.create({ name: 'ci-failover', role: 'operator', mirrors: ['.*-to-eu-west'], expiresInDays: 1 }, 'test')
    secret = created?.secret ?? ''
  })
  afterAll(async () => {
    await runtime?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('lists the mirrors its scope names, pauses there, and is refused elsewhere with exit 1', async () => {
    const listed = await run(['--list'])
    expect(listed.code, listed.err).toBe(0)
    expect(listed.out.split('\n').slice(1).filter((line) => line !== '').map((line) => line.split(/\s+/)[0])).toEqual(['orders-to-eu-west'])

    const refused = await run(['--pause', '--mirror', 'billing-dr'])
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/^mirrorboard: FORBIDDEN: your operator role does not extend to mirror billing-dr\n$/)
    expect(runtime.engine.partitions('billing-dr').some((p) => p.state === 'PAUSED')).toBe(false)

    const paused = await run(['--pause', '--mirror', 'orders-to-eu-west'])
    expect(paused.code, paused.err).toBe(0)
    await vi.waitFor(() => expect(runtime.engine.partitions('orders-to-eu-west').every((p) => p.state === 'PAUSED')).toBe(true))

    const entries = await runtime.audit.query({ action: 'mirror.topics.pause', limit: 10 })
    expect(entries.map((entry) => [entry.actor, entry.target, entry.outcome])).toEqual(
      expect.arrayContaining([
        ['token:ci-failover', '/mirrors/orders-to-eu-west/topics/pause', 'ok'],
        ['token:ci-failover', '/mirrors/billing-dr/topics/pause', 'rejected'],
      ]),
    )
  })
})
