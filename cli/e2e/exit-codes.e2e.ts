import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiOk, everythingPrinted, expectExit, start, target, tokenOf } from './support'

/**
 * What a script reads from the exit code: 1 when the server refuses (a viewer's token, a wrong state, no token), the
 * code and message on stderr; 3 when it cannot be reached (nothing listens, or nothing answers in time); 2 for a
 * wrong command line, with the usage line, and then nothing is sent at all: those runs go to a listener that counts
 * every connection. The token travels only in the Authorization header: never in an argument (`ps` shows those),
 * never in anything printed.
 */

/** A TCP listener that records what arrives and answers nothing: "nothing was sent" is zero connections. */
class Listener {
  readonly received: string[] = []
  connections = 0
  private readonly sockets = new Set<Socket>()
  private server: Server | null = null
  port = 0

  async open(): Promise<void> {
    this.server = createServer((socket) => {
      this.connections += 1
      this.sockets.add(socket)
      socket.on('data', (chunk: Buffer) => this.received.push(chunk.toString('latin1')))
      socket.on('close', () => this.sockets.delete(socket))
    })
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve))
    const address = this.server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    this.port = address.port
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()))
  }
}

/** A port nothing listens on: bound, read, released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

const listener = new Listener()
let dir = ''

beforeAll(async () => {
  await listener.open()
  dir = await mkdtemp(path.join(tmpdir(), 'mirrorboard-cli-exit-'))
  await apiOk('POST', '/clusters', { name: 'exit-src', kind: 'embedded', brokers: 1 }, 201)
  await apiOk('POST', '/clusters', { name: 'exit-dst', kind: 'embedded', brokers: 1 }, 201)
  await apiOk('POST', '/clusters/exit-src/topics', { name: 'events', partitions: 2 }, 201)
  await apiOk('POST', '/mirrors', { name: 'exit-m', sourceCluster: 'exit-src', destinationCluster: 'exit-dst', topics: ['events'] }, 201)
})

afterAll(async () => {
  await listener.close()
  await rm(dir, { recursive: true, force: true })
})

describe('exit 2: a wrong command line, the usage line, and nothing sent', () => {
  const cases: Array<{ what: string; args: string[]; message: RegExp; usage: string }> = [
    { what: 'an unknown flag', args: ['--describe', '--bogus'], message: /^mirrorboard: unknown option '--bogus'$/m, usage: 'Usage: mirrorboard --describe [--mirror M] [--failed] [--json] [--state-names api|kip]' },
    { what: 'two actions at once', args: ['--start', '--stop', '--mirror', 'exit-m'], message: /^mirrorboard: one action at a time: --start and --stop were both given$/m, usage: 'Usage: mirrorboard --<action> [options]' },
    { what: 'no action', args: ['--mirror', 'exit-m'], message: /^mirrorboard: name one action: --create, --start, --stop/m, usage: 'Usage: mirrorboard --<action> [options]' },
    {
      what: 'a malformed regex',
      args: ['--start', '--mirror', 'exit-m', '--topics', 'events,(unclosed'],
      message: /^mirrorboard: --topics '\(unclosed' is not a pattern \(RE2, no backreferences or lookaround\): /m,
      usage: "Usage: mirrorboard --start --mirror M --topics 'regex,…' [--exclude 'regex,…']",
    },
    { what: 'a missing --mirror', args: ['--pause'], message: /^mirrorboard: --mirror is required$/m, usage: "Usage: mirrorboard --pause --mirror M [--topics 'regex,…']" },
    { what: 'an option of another action', args: ['--stop', '--mirror', 'exit-m', '--exclude', 'x'], message: /^mirrorboard: unknown option '--exclude'$/m, usage: 'Usage: mirrorboard --stop --mirror M' },
    { what: 'a value out of its choices', args: ['--stop', '--mirror', 'exit-m', '--type', 'sideways'], message: /^mirrorboard: option '--type <type>' argument 'sideways' is invalid/m, usage: 'Usage: mirrorboard --stop' },
    { what: 'a name the API refuses', args: ['--create', '--mirror', 'bad name!', '--source', 'a', '--destination', 'b'], message: /^mirrorboard: name: /m, usage: 'Usage: mirrorboard --create --mirror M' },
    { what: 'a --token flag', args: ['--list', '--token', 'not-a-real-token'], message: /^mirrorboard: there is no --token flag \(a flag value shows in ps\): set MIRRORBOARD_TOKEN or pass --token-file FILE$/m, usage: 'Usage: mirrorboard --<action> [--token-file FILE] [options]' },
    { what: 'a --token-file that does not exist', args: ['--list', '--token-file', '/nonexistent/token'], message: /^mirrorboard: cannot read --token-file \/nonexistent\/token: ENOENT$/m, usage: 'Usage: mirrorboard --list' },
    { what: 'a server URL with credentials in it', args: ['--list', '--server', 'http://user:secret@127.0.0.1:1'], message: /^mirrorboard: the server URL must not hold credentials/m, usage: 'Usage: mirrorboard --list' },
  ]
  for (const { what, args, message, usage } of cases) {
    it(`${what}: ${args.join(' ')}`, async () => {
      const before = listener.connections
      const run = await expectExit(args, 2, { url: listener.url })
      expect(run.stdout).toBe('')
      expect(run.stderr).toMatch(message)
      expect(run.stderr).toContain(usage)
      expect(listener.connections - before, 'connections to the server').toBe(0)
    })
  }

  it('repeats no value of a flag it refuses', async () => {
    const run = await expectExit(['--list', '--tokn=s3cret-typo'], 2, { url: listener.url })
    expect(run.stderr).toContain("unknown option '--tokn=…'")
    expect(run.stderr).not.toContain('s3cret-typo')
    const flag = await expectExit(['--list', '--token=s3cret-value'], 2, { url: listener.url })
    expect(flag.stderr).not.toContain('s3cret-value')
  })
})

describe('exit 1: refused by the server, its code and message on stderr', () => {
  it("a viewer's token changing something: FORBIDDEN, and the mirror untouched", async () => {
    const run = await expectExit(['--pause', '--mirror', 'exit-m'], 1, { as: 'viewer' })
    expect(run.stderr).toMatch(/^mirrorboard: FORBIDDEN: .+\n$/)
    expect(run.stdout).toBe('')
    const { partitionsByState } = await apiOk<{ partitionsByState: Record<string, number> }>('GET', '/mirrors/exit-m')
    expect(partitionsByState.PAUSED ?? 0).toBe(0)
  })

  it('a viewer reads: --describe and --list exit 0', async () => {
    await expectExit(['--describe', '--mirror', 'exit-m'], 0, { as: 'viewer' })
    await expectExit(['--list'], 0, { as: 'viewer' })
  })

  it('no token at all: UNAUTHENTICATED', async () => {
    const run = await expectExit(['--list'], 1, { as: null })
    expect(run.stderr).toBe('mirrorboard: UNAUTHENTICATED: credentials required: a bearer token or a session cookie\n')
  })

  it('the wrong state: deleting a mirror whose topics are not STOPPED; a failback before the failover', async () => {
    const deleted = await expectExit(['--delete', '--mirror', 'exit-m'], 1)
    expect(deleted.stderr).toMatch(/^mirrorboard: INVALID_MIRROR_STATE: .+\n$/)
    expect((await apiOk<{ name: string }>('GET', '/mirrors/exit-m')).name).toBe('exit-m')
    const failback = await expectExit(['--failback', '--mirror', 'exit-m', '--confirm', 'exit-src'], 1)
    expect(failback.stderr).toMatch(/^mirrorboard: INVALID_MIRROR_STATE: fail over exit-m first: 0 of 2 partitions are STOPPED/)
  })

  it('what does not exist: NOT_FOUND; a topic pattern that selects nothing', async () => {
    const missing = await expectExit(['--describe', '--mirror', 'no-such-mirror'], 1)
    expect(missing.stderr).toMatch(/^mirrorboard: NOT_FOUND: .+\n$/)
    const nothing = await expectExit(['--pause', '--mirror', 'exit-m', '--topics', 'nomatch.*'], 1)
    expect(nothing.stderr).toBe('mirrorboard: NOT_FOUND: no topic of mirror exit-m matches nomatch.* (its topics: events)\n')
  })

  it('a name already taken: CONFLICT', async () => {
    const run = await expectExit(['--clusters', 'add', '--cluster', 'exit-src', '--kind', 'embedded', '--brokers', '1'], 1)
    expect(run.stderr).toMatch(/^mirrorboard: [A-Z_]+: .*exit-src.*\n$/)
  })
})

describe('exit 3: the server cannot be reached', () => {
  it('nothing listens: connection refused', async () => {
    const port = await closedPort()
    const run = await expectExit(['--list'], 3, { url: `http://127.0.0.1:${port}` })
    expect(run.stderr).toBe(`mirrorboard: cannot reach http://127.0.0.1:${port}: connection refused\n`)
  })

  it('nothing answers within --timeout; the token went in the Authorization header and nowhere else', async () => {
    const running = start(['--describe', '--mirror', 'exit-m', '--timeout', '2'], { url: listener.url })
    await new Promise((resolve) => setTimeout(resolve, 700))
    // While it runs: what ps shows of it, and what the server receives.
    const pid = running.process.pid ?? 0
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
    expect(cmdline).toContain('--describe --mirror exit-m --timeout 2')
    expect(cmdline).not.toContain(tokenOf('operator'))
    const run = await running.done
    expect(run.code).toBe(3)
    expect(run.stderr).toBe(`mirrorboard: cannot reach ${listener.url}: no answer within 2 s\n`)
    const request = listener.received.join('')
    expect(request).toMatch(/^GET \/api\/v1\/mirrors\/exit-m\/describe HTTP\/1\.1\r\n/)
    expect(request.toLowerCase()).toContain(`authorization: bearer ${tokenOf('operator').toLowerCase()}\r\n`)
    expect(request.split('\r\n\r\n')[0]?.split('\r\n')[0]).not.toContain(tokenOf('operator'))
  })
})

describe('Ctrl-C', () => {
  it('aborts the request in flight and exits 130', async () => {
    const before = listener.connections
    const running = start(['--list', '--timeout', '60'], { url: listener.url })
    // Interrupted once its request is on the wire (the listener never answers it).
    const deadline = Date.now() + 30_000
    while (listener.connections === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(listener.connections).toBeGreaterThan(before)
    running.process.kill('SIGINT')
    const run = await running.done
    expect(run.code).toBe(130)
    expect(run.stderr).toBe('mirrorboard: interrupted\n')
  })
})

describe('the token: MIRRORBOARD_TOKEN or --token-file, never printed', () => {
  it('--token-file reads it (and wins over MIRRORBOARD_TOKEN); an empty file is a usage error', async () => {
    const file = path.join(dir, 'viewer.token')
    await writeFile(file, `${tokenOf('viewer')}\n`, { mode: 0o600 })
    // The file's viewer token, not the environment's operator one: the pause is refused.
    const run = await expectExit(['--pause', '--mirror', 'exit-m', '--token-file', file], 1, { as: 'operator' })
    expect(run.stderr).toMatch(/^mirrorboard: FORBIDDEN: /)
    await expectExit(['--list', '--token-file', file], 0, { as: null })
    const empty = path.join(dir, 'empty.token')
    await writeFile(empty, '\n')
    const refused = await expectExit(['--list', '--token-file', empty], 2, { as: null })
    expect(refused.stderr).toContain(`--token-file ${empty} is empty`)
  })

  it('showed in nothing this file printed', () => {
    const everything = everythingPrinted()
    expect(everything).toContain('FORBIDDEN')
    expect(everything).not.toContain(target.operatorToken)
    expect(everything).not.toContain(target.viewerToken)
  })
})
