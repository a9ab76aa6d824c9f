import { describe, expect, it } from 'vitest'
import { forEachConcurrently, TimeSlice, TurnBudget, yieldToEventLoop } from './cooperative'

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

describe('TurnBudget', () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms
    while (performance.now() < end) {
      // stands for an append's synchronous work
    }
  }

  it('lets a timer run between pieces of work started in one turn once their budget is spent', async () => {
    const budget = new TurnBudget(2)
    let timerRan = false
    const order: string[] = []
    setTimeout(() => {
      timerRan = true
      order.push('timer')
    }, 0)
    // Twenty pieces of 0.5 ms started together, as a hundred produce calls started by one timer callback.
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        for (let turn = budget.maybeYield(); turn; turn = budget.maybeYield()) await turn
        busy(0.5)
        order.push(`piece ${i}`)
      }),
    )
    expect(timerRan).toBe(true)
    const timerAt = order.indexOf('timer')
    // The first turn ran about the budget's worth of pieces (2 ms of 0.5 ms pieces), not all twenty.
    expect(timerAt).toBeGreaterThan(0)
    expect(timerAt).toBeLessThan(20)
    expect(order.filter((entry) => entry !== 'timer')).toEqual(Array.from({ length: 20 }, (_, i) => `piece ${i}`))
  })

  it('never makes the first piece of a fresh turn wait', async () => {
    const budget = new TurnBudget(1)
    for (let turn = 0; turn < 5; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 2))
      expect(budget.maybeYield()).toBeUndefined()
      busy(3)
      // The turn's budget is spent now: the next piece in it waits.
      expect(budget.maybeYield()).toBeInstanceOf(Promise)
    }
  })
})
