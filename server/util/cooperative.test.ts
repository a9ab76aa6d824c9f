import { describe, expect, it } from 'vitest'
import { forEachConcurrently, TimeSlice, yieldToEventLoop } from './cooperative'

describe('forEachConcurrently', () => {
  it('visits every item once with at most `limit` in flight', async () => {
    let inFlight = 0
    let peak = 0
    const seen: number[] = []
    await forEachConcurrently(Array.from({ length: 50 }, (_, i) => i), 4, async (item) => {
      inFlight += 1
      peak = Math.max(peak, inFlight)
      await yieldToEventLoop()
      seen.push(item)
      inFlight -= 1
    })
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
    expect(peak).toBe(4)
  })

  it('finishes the other items and then rejects with the first failure', async () => {
    const done: number[] = []
    await expect(
      forEachConcurrently([1, 2, 3, 4], 2, async (item) => {
        if (item === 2) throw new Error('two failed')
        await yieldToEventLoop()
        done.push(item)
      }),
    ).rejects.toThrow('two failed')
    expect(done.sort()).toEqual([1, 3, 4])
  })

  it('refuses a limit below one', async () => {
    await expect(forEachConcurrently([1], 0, async () => {})).rejects.toThrow(RangeError)
  })
})

describe('TimeSlice', () => {
  it('lets a timer run in the middle of a long synchronous sweep', async () => {
    let timerRan = false
    setTimeout(() => (timerRan = true), 0)
    const slice = new TimeSlice(1)
    let sawTimerMidway = false
    for (let i = 0; i < 200; i++) {
      const end = performance.now() + 0.1
      while (performance.now() < end) {
        // busy: stands for per-partition work
      }
      await slice.maybeYield()
      if (timerRan && i < 199) sawTimerMidway = true
    }
    expect(sawTimerMidway).toBe(true)
  })
})
