import { describe, expect, it } from 'vitest'
import { drillPauseMs, lagBudgetMs, LAG_ALLOWANCE_MS, MAX_PAUSE_MS } from './pacing'

describe("a drill's pace against production's lag", () => {
  it('budgets the lag at the start plus half of it, at least the allowance', () => {
    expect(lagBudgetMs(0)).toBe(LAG_ALLOWANCE_MS)
    expect(lagBudgetMs(200)).toBe(200 + LAG_ALLOWANCE_MS)
    expect(lagBudgetMs(2_000)).toBe(3_000)
    expect(lagBudgetMs(Number.NaN)).toBe(LAG_ALLOWANCE_MS)
  })

  it('does not pause within the budget or without a lag, then pauses more the further over, capped', () => {
    expect([drillPauseMs(null, 500), drillPauseMs(750, 500), drillPauseMs(Number.NaN, 500)]).toEqual([0, 0, 0])
    expect(drillPauseMs(751, 500)).toBe(1)
    expect(drillPauseMs(1_150, 500)).toBe(100)
    expect(drillPauseMs(60_000, 500)).toBe(MAX_PAUSE_MS)
  })
})
