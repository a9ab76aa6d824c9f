import 'server-only'
import { SandboxProcess } from './sandbox-process'

/**
 * The next drill's sandbox process, forked before the drill while no drill runs (after the server's start, after
 * each drill), so that no turn of a drill waits for a fork: libuv's spawn holds the calling thread until the child
 * has exec'd, and that was the drill's one turn still blocked 49–92 ms (server/drills/README.md, sessions 24–25).
 *
 * While it waits the spare costs next to nothing: node alone (the sandbox's modules load when a drill takes it,
 * sandbox-child.ts), asleep at nice 10 (SANDBOX_FAILOVER_NICE). Not at 19 until then: a process cannot raise its
 * priority back without privileges, and the RTO's part of a drill at nice 19 was starved above load ~16 (sessions
 * 20–22). It ends with the server as a drill's process does (its IPC channel closes). A spare that died is never
 * handed out: the drill forks its own, as before, and a new spare is forked later (after a longer wait each time one
 * dies untaken, so a process that cannot start is not forked in a loop).
 */

type Log = (message: string, fields: Record<string, unknown>) => void

/** How long after the server's start or a drill's end the spare is forked: out of the drill's last turns. */
export const SPARE_DELAY_MS = 2_000
/** The longest wait before the next spare after spares kept dying untaken. */
const MAX_RETRY_MS = 10 * 60_000

export class SandboxSpare {
  private spare: SandboxProcess | null = null
  private timer: NodeJS.Timeout | null = null
  private closed = false
  /** Spares that died untaken in a row: each doubles the wait before the next. */
  private deaths = 0
  private readonly forkedWaiters: Array<(spare: SandboxProcess) => void> = []

  constructor(
    private readonly log: Log,
    /** Forks only while this holds (no drill running): a fork during a drill is the stall this class removes. */
    private readonly idle: () => boolean,
    private readonly delayMs = SPARE_DELAY_MS,
  ) {}

  /** Forks a spare `delayMs` from now unless one is alive or due; forked only if the server is still idle then. */
  prepare(delayMs = this.delayMs): void {
    if (this.closed || this.timer !== null || this.spare !== null) return
    this.timer = setTimeout(() => {
      this.timer = null
      if (this.closed || this.spare !== null || !this.idle()) return
      this.forkNow()
    }, delayMs)
    // A spare due is no reason to keep a process alive.
    this.timer.unref()
  }

  private forkNow(): void {
    let spare: SandboxProcess
    try {
      spare = SandboxProcess.spawn(this.log, { spare: true })
    } catch (error) {
      // E.g. a production install without the sandbox's build: each drill forks its own and fails saying why.
      this.log('drill spare sandbox process not started', { error: error instanceof Error ? error.message : String(error) })
      return
    }
    this.spare = spare
    void spare.whenExited().then(() => {
      if (this.spare !== spare) return
      // Died untaken (killed, out of memory): replaced, never handed out.
      this.spare = null
      this.deaths += 1
      if (this.closed) return
      this.log('drill spare sandbox process ended; another will be forked', { pid: spare.pid, deaths: this.deaths })
      this.prepare(Math.min(MAX_RETRY_MS, this.delayMs * 2 ** this.deaths))
    })
    for (const waiter of this.forkedWaiters.splice(0)) waiter(spare)
  }

  /**
   * A drill's sandbox process: the spare if it is alive (`spare: true`), else one forked now, in the drill's turn.
   * Its modules start loading (SandboxProcess.load); the next spare is forked after the drill (prepare).
   */
  take(log: Log): { process: SandboxProcess; spare: boolean } {
    const spare = this.spare
    this.spare = null
    if (spare !== null && spare.alive) {
      this.deaths = 0
      spare.load(log)
      return { process: spare, spare: true }
    }
    // Exited, or its exit not yet reported: not this drill's.
    if (spare !== null) void spare.kill()
    const process = SandboxProcess.spawn(log)
    process.load()
    return { process, spare: false }
  }

  /** The spare's pid while one waits (tests, the bench). */
  get pid(): number | undefined {
    return this.spare?.pid
  }

  /** Resolves with the spare once one is forked (the one waiting now, if any). */
  forked(): Promise<SandboxProcess> {
    if (this.spare !== null) return Promise.resolve(this.spare)
    return new Promise((resolve) => this.forkedWaiters.push(resolve))
  }

  /** No more spares; the one waiting is ended. */
  async close(): Promise<void> {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    const spare = this.spare
    this.spare = null
    await spare?.kill()
  }
}
