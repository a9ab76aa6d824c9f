// No 'server-only': server/main.ts, compiled by tsc outside Next, imports it.
import os from 'node:os'
import v8 from 'node:v8'

/**
 * Fewer cores than this: V8's young-generation collections (scavenges) run on the main thread alone.
 *
 * A parallel scavenge splits its work between the main thread and V8's helper threads, and the main thread waits
 * for every helper that took a share. On a host of two cores that other processes share, a helper waits for a core
 * while the main thread sleeps on it: scavenges of ~6 ms of work took 130–270 ms of wall time with 4–5 ms of the
 * main thread's CPU, the drill's longest event-loop stalls (`npm run bench -- drill` with `--trace-gc` laid over
 * the stall meter's long turns, the main thread asleep in a futex wait in those turns; session 24). Alone the main
 * thread does the same work in a few ms more of its own CPU, and never waits for another thread to be scheduled.
 * With more cores a helper finds one and the parallel scavenge is the shorter pause: V8's default stays.
 */
export const PARALLEL_SCAVENGE_MIN_CORES = 3

/** Turns parallel scavenges off on a small host (see above); true when it did. Process-wide, workers included. */
export function fitScavengesToCores(cores: number = os.availableParallelism()): boolean {
  if (cores >= PARALLEL_SCAVENGE_MIN_CORES) return false
  v8.setFlagsFromString('--no-parallel-scavenge')
  return true
}

/**
 * The V8 flags the production server starts with (`npm start` and scripts/demo.sh put them on node's command line):
 * every collection on the main thread alone, the old generation's too. A flag of the command line, not
 * setFlagsFromString: set at run time, Node 20's V8 (11.3) asserts in its cppgc marker on its first mark-compact (its concurrent
 * marking handle was made when the heap was).
 *
 * Why, after fitScavengesToCores: on a host of two cores that other processes share, the drill's remaining
 * blocked turns (40–150 ms asleep with a few ms of CPU, `npm run bench -- drill`, session 25) were the main thread in
 * a futex wait for V8's helper threads, now those of mark-compacts: their concurrent marking and sweeping, their
 * parallel marking, evacuation and pointer updates, each helper waiting for a core while the main thread waited for
 * it. With this flag the main thread does that work itself in incremental steps (a few ms each) and a longer atomic
 * pause (15–55 ms at the drill's ~120 MB heap), and never sleeps on another thread. On a host with cores to spare
 * the helpers are the shorter pause: start the server without it there (`node dist/main.js`).
 */
export const SERVER_V8_FLAGS: readonly string[] = ['--single-threaded-gc']

/** Whether this process was started with the server's V8 flags (above). */
export function startedWithServerFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return SERVER_V8_FLAGS.every((flag) => execArgv.includes(flag))
}
