import 'server-only'
import { fork, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { LogCloseState } from '@/server/storage/types'
import { yieldToEventLoop } from '@/server/util/cooperative'
import { CLOSE_STATES_PER_MESSAGE, type FromChild, type ToChild } from './sandbox-protocol'

/**
 * A drill's sandbox process (sandbox-child.ts), at a low CPU priority, the lowest for its checks; forked as a
 * spare before the drill that takes it (sandbox-spare.ts), its modules loaded when taken (`load`). The sandbox's open, failover and checks
 * held the server's one event loop 93–100 % of a drill, and production's lag p99 was ~4× its own without a drill
 * (server/drills/README.md, session 19): pausing the drill's steps from the same loop did not give production its
 * turns back. In a process of its own at nice 19 the kernel's scheduler does: whenever production wants a core, it
 * gets it first.
 *
 * The entry: the TypeScript source through tsx where tsx is installed (dev, tests, `npm run bench`, the demo); the
 * build otherwise (`dist/sandbox/`, `node cli/build.mjs tsconfig.sandbox.json` in `npm run build`): a production
 * install (`npm ci --omit=dev`) has no tsx. Both with the react-server condition the server's own modules are
 * loaded under (`server-only`).
 */

/**
 * The sandbox's nice value through its checks: the lowest priority, so production mirroring (nice 0) always runs
 * first. The checks are not in the RTO, and they are most of a drill's CPU.
 */
export const SANDBOX_NICE = 19

/**
 * The sandbox's nice value from its start until its copy is writable (module load, open, seeding, the STOPPING
 * sequence: the RTO's part in this process). At nice 19 the kernel gave it ~1.5 % of a core against a busy
 * production thread of the same scheduling group (weights 15 against 1,024), and above load ~16 on two cores the
 * RTO grew past its goal (server/drills/README.md, sessions 20–21); nice 10 (weight 110) is ~10 %. Lowered to
 * SANDBOX_NICE once the failover answered (lowerForChecks): a process may always lower its own priority, never
 * raise it back, so the order is this one.
 */
export const SANDBOX_FAILOVER_NICE = 10

/**
 * The young generation's semi-space (MB; V8's default is 16): opening and failing over 2,000 logs allocates
 * short-lived buffers and records fast, and the scavenges were 12 % of the sandbox process's CPU through its
 * failover (a CPU profile at load 17–21, session 21). The process lives for one drill.
 */
const SEMI_SPACE = '--max-semi-space-size=64'

export function sandboxEntry(root = process.cwd()): { file: string; execArgv: string[] } {
  const source = path.join(root, 'server', 'drills', 'sandbox-child.ts')
  const compiled = path.join(root, 'dist', 'sandbox', 'server', 'drills', 'sandbox-child.js')
  // The source wherever tsx is installed (never older than the server that forks it); MIRRORBOARD_SANDBOX_COMPILED=1
  // tries the build from a development checkout.
  const tsx = existsSync(path.join(root, 'node_modules', 'tsx', 'package.json')) && existsSync(source)
  if (tsx && process.env.MIRRORBOARD_SANDBOX_COMPILED !== '1') return { file: source, execArgv: ['--conditions=react-server', SEMI_SPACE, '--import', 'tsx'] }
  if (!existsSync(compiled)) throw new Error(`the drill's sandbox process is not built (${compiled} is missing): run npm run build`)
  return { file: compiled, execArgv: ['--conditions=react-server', SEMI_SPACE] }
}

type Answer = Exclude<FromChild, { type: 'log' } | { type: 'error' } | { type: 'ready' }>
type Log = (message: string, fields: Record<string, unknown>) => void

export class SandboxProcess {
  private readonly child: ChildProcess
  private waiting: { resolve: (answer: FromChild) => void; reject: (error: Error) => void } | null = null
  private ended: Error | null = null
  private readonly ready: Promise<void>
  private readonly exited: Promise<void>
  private loading = false
  private log: Log

  private constructor(log: Log) {
    const { file, execArgv } = sandboxEntry()
    // Turbopack would resolve the entry as a module of the server's bundle: it is a process of its own, built apart.
    this.child = fork(/* turbopackIgnore: true */ file, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.log = log
    this.setNice(SANDBOX_FAILOVER_NICE)
    this.ready = new Promise((resolve, reject) => {
      this.waiting = { resolve: () => resolve(), reject }
    })
    // Awaited by whenReady; a drill cancelled before then never asks.
    this.ready.catch(() => undefined)
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()))
    this.child.on('message', (message: FromChild) => {
      if (message.type === 'log') return this.log(message.message, message.fields)
      const waiting = this.waiting
      this.waiting = null
      if (waiting === null) return
      if (message.type === 'error') waiting.reject(new Error(message.message))
      else waiting.resolve(message)
    })
    const end = (why: string) => {
      this.ended ??= new Error(`the drill's sandbox process ${why}`)
      const waiting = this.waiting
      this.waiting = null
      waiting?.reject(this.ended)
    }
    this.child.on('error', (error) => end(`failed: ${error.message}`))
    this.child.on('exit', (code, signal) => end(signal ? `was stopped (${signal})` : `exited with code ${code}`))
  }

  private setNice(nice: number): void {
    try {
      if (this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) os.setPriority(this.child.pid, nice)
    } catch (error) {
      // Not fatal: the drill runs, only without the priority (reported in the log).
      this.log('drill sandbox priority not lowered', { nice, error: error instanceof Error ? error.message : String(error) })
    }
  }

  /** The copy is writable: the checks run at the lowest priority (SANDBOX_NICE). */
  lowerForChecks(): void {
    this.setNice(SANDBOX_NICE)
  }

  /**
   * Starts the process, which waits with none of the sandbox's modules loaded until `load`. The calling turn
   * waits in libuv's spawn until the child has exec'd (20–92 ms at load, server/drills/README.md sessions 24–25):
   * a drill takes a spare forked before it (sandbox-spare.ts).
   */
  static spawn(log: Log, options: { spare?: boolean } = {}): SandboxProcess {
    const process = new SandboxProcess(log)
    // A spare waiting is no reason for the server's process to stay alive (its IPC channel would hold the loop).
    if (options.spare) {
      process.child.unref()
      process.child.channel?.unref()
    }
    return process
  }

  /** A drill took the process: its log is now the drill's, and its modules load (whenReady). */
  load(log: Log = this.log): void {
    this.log = log
    if (this.loading || this.ended) return
    this.loading = true
    this.child.ref()
    this.child.channel?.ref()
    this.child.send({ type: 'load' } satisfies ToChild)
  }

  /** Not exited, not exiting, its IPC channel open: a spare that may be handed to a drill. */
  get alive(): boolean {
    return this.ended === null && this.child.exitCode === null && this.child.signalCode === null && this.child.connected
  }

  /** Resolves once its modules are loaded (after `load`); rejects if it ended first. */
  whenReady(): Promise<void> {
    return this.ready
  }

  /** Resolves once the process has exited, however it ended. */
  whenExited(): Promise<void> {
    return this.exited
  }

  /** Sends a request and waits for its answer (one at a time). */
  request<T extends Answer['type']>(message: Exclude<ToChild, { type: 'lag' } | { type: 'load' } | { type: 'closeStates' }>, answer: T): Promise<Extract<FromChild, { type: T }>> {
    if (this.ended) return Promise.reject(this.ended)
    if (this.waiting !== null) return Promise.reject(new Error('the sandbox process is busy'))
    return new Promise((resolve, reject) => {
      this.waiting = {
        resolve: (got) => (got.type === answer ? resolve(got as Extract<FromChild, { type: T }>) : reject(new Error(`the sandbox process answered ${got.type}, not ${answer}`))),
        reject,
      }
      this.child.send(message)
    })
  }

  /**
   * A copy's close states, CLOSE_STATES_PER_MESSAGE a message, each serialized in a turn of its own (one message
   * of 2,000 was one turn of 28–37 ms of this thread); sent before the `failOver` request that opens the copy.
   */
  async sendCloseStates(closeStates: ReadonlyMap<string, LogCloseState>): Promise<void> {
    let entries: Array<[string, LogCloseState]> = []
    for (const entry of closeStates) {
      entries.push(entry)
      if (entries.length < CLOSE_STATES_PER_MESSAGE) continue
      this.sendCloseStateEntries(entries)
      entries = []
      await yieldToEventLoop()
    }
    if (entries.length > 0) this.sendCloseStateEntries(entries)
  }

  private sendCloseStateEntries(entries: Array<[string, LogCloseState]>): void {
    if (this.ended) throw this.ended
    this.child.send({ type: 'closeStates', entries } satisfies ToChild)
  }

  /** Production's latest lag, for the sandbox's pacing; dropped when the process is gone. */
  lag(lagMs: number | null): void {
    if (this.ended || !this.child.connected) return
    this.child.send({ type: 'lag', lagMs } satisfies ToChild)
  }

  /** Ends the process now (a cancelled or failed drill, or after its close); resolves once it has exited. */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve()
    this.child.kill('SIGKILL')
    return this.exited
  }

  get pid(): number | undefined {
    return this.child.pid
  }
}
