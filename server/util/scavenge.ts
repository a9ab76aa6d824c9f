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
