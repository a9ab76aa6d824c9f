// The event loop's longest stall while something runs, two ways: in wall time (what a request waiting then felt),
// and in the main thread's own CPU time (what the work itself cost, without the time the OS gave other
// processes). On a machine shared by many, wall-time stalls of 100-300 ms happen with nothing running at all;
// the CPU figure is the one that says whether the code holds the loop. Linux only for the CPU figure: it reads
// the main thread's run time from /proc/self/task/<pid>/schedstat (nanoseconds) at every tick of a 1 ms timer.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`

/** The main thread's run time and its time runnable but waiting for a core (schedstat's first two fields, ns). */
function schedstat(): [number, number] | null {
  try {
    const [run, waited] = readFileSync(SCHEDSTAT, 'utf8').split(' ')
    return [Number(run), Number(waited)]
  } catch {
    return null
  }
}

function cpuNs(): number | null {
  return schedstat()?.[0] ?? null
}

/**
 * BENCH_STALL_LOG=<ms>: every turn that used more than that much main-thread CPU or wall time is printed after the
 * run with its window on the monotonic clock (`process.hrtime`, microseconds: the clock of a `node --cpu-prof`
 * profile's samples), to name the task that ran then from the profile; its `performance.now()` start (the clock of a
 * `--trace-gc` line's milliseconds, within a few) and its wall end, for a kernel-side trace (`strace -ttt`).
 */
const LOG_OVER_MS = Number(process.env.BENCH_STALL_LOG ?? Number.NaN)

export interface Stalls {
  /** The longest wait between two ticks of a 1 ms timer, minus the 1 ms. */
  wallMs: number
  /** The most CPU time the main thread used between two ticks; null off Linux. */
  cpuMs: number | null
  /** The main thread's CPU time over the whole run (other work that ran meanwhile included); null off Linux. */
  cpuTotalMs: number | null
}

/** Measures the stalls while `run` runs (and one tick after it, so a stall at its very end is seen). */
export async function withStalls<T>(run: () => Promise<T> | T): Promise<{ value: T; ms: number; stalls: Stalls }> {
  let wallMs = 0
  let cpuMs: number | null = cpuNs() === null ? null : 0
  let lastWall = performance.now()
  let lastCpu = cpuNs()
  let ticking = true
  let timer: NodeJS.Timeout | undefined
  const turns: Array<{ fromUs: number; toUs: number; cpuMs: number; wallMs: number; waitedMs: number; endedAt: number; atMs: number }> = []
  let lastWaited = schedstat()?.[1] ?? 0
  let lastUs = Number(process.hrtime.bigint() / 1000n)
  const tick = () => {
    const wall = performance.now()
    const stat = schedstat()
    const cpu = stat?.[0] ?? null
    const waited = stat?.[1] ?? 0
    const us = Number(process.hrtime.bigint() / 1000n)
    wallMs = Math.max(wallMs, wall - lastWall - 1)
    if (cpu !== null && lastCpu !== null) {
      cpuMs = Math.max(cpuMs ?? 0, (cpu - lastCpu) / 1e6)
      if ((cpu - lastCpu) / 1e6 > LOG_OVER_MS || wall - lastWall > LOG_OVER_MS) {
        turns.push({ fromUs: lastUs, toUs: us, cpuMs: Math.round((cpu - lastCpu) / 1e6), wallMs: Math.round(wall - lastWall), waitedMs: Math.round((waited - lastWaited) / 1e6), endedAt: Date.now(), atMs: Math.round(lastWall - started) })
      }
    }
    lastWaited = waited
    lastUs = us
    lastWall = wall
    lastCpu = cpu
    if (ticking) timer = setTimeout(tick, 1)
  }
  const started = performance.now()
  timer = setTimeout(tick, 1)
  const cpuStarted = cpuNs()
  const value = await run()
  const ms = performance.now() - started
  const cpuEnded = cpuNs()
  await new Promise((resolve) => setTimeout(resolve, 5))
  ticking = false
  clearTimeout(timer)
  // Wall = CPU + waiting for a core (runnable, descheduled) + the rest, off the CPU by its own doing (blocked in a
  // system call, a page fault, a lock).
  for (const turn of turns) {
    const blocked = Math.max(0, turn.wallMs - turn.cpuMs - turn.waitedMs)
    console.log(`long turn: ${turn.cpuMs} ms CPU, ${turn.wallMs} ms wall (${turn.waitedMs} ms waiting for a core, ${blocked} ms blocked), hrtime µs ${turn.fromUs}–${turn.toUs}, ${turn.atMs} ms into the run (performance.now ${Math.round(started + turn.atMs)}), ended ${new Date(turn.endedAt).toISOString()}`)
  }
  const cpuTotalMs = cpuStarted === null || cpuEnded === null ? null : (cpuEnded - cpuStarted) / 1e6
  return { value, ms, stalls: { wallMs: Math.max(0, wallMs), cpuMs, cpuTotalMs } }
}
