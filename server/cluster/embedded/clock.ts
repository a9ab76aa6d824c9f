import 'server-only'

/** Where the cluster reads time: record timestamps, replica lag, transaction and request timeouts. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that moves only when told to: tests and scenario replays step time deterministically. */
export class ManualClock implements Clock {
  private current: number

  constructor(start = 1_764_400_000_000) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot move a clock by ${ms} ms`)
    this.current += ms
    return this.current
  }

  set(time: number): void {
    if (!Number.isFinite(time) || time < this.current) throw new RangeError(`cannot move a clock back to ${time}`)
    this.current = time
  }
}
