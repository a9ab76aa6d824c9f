import { describe, expect, it } from 'vitest'
import { drillCadence } from '@/lib/drill/cadence'
import { renderPrometheus } from '@/server/observability/metrics'
import { drillMetrics, type DrillCadenceSource } from './drill-metrics'

const DAY_MS = 24 * 60 * 60 * 1000
const NOW = 100 * DAY_MS

/** Three mirrors: `late` drilled 9 days ago against 7, `kept` 2 days ago against 7 with a drill running, `free` with no objective and no drill. */
const source: DrillCadenceSource = {
  cadence: (mirror) =>
    ({
      late: drillCadence({ lastSucceededAt: NOW - 9 * DAY_MS, intervalDays: 7, now: NOW }),
      kept: drillCadence({ lastSucceededAt: NOW - 2 * DAY_MS, intervalDays: 7, now: NOW }),
      never: drillCadence({ lastSucceededAt: null, intervalDays: 30, now: NOW }),
      free: drillCadence({ lastSucceededAt: null, intervalDays: null, now: NOW }),
    })[mirror]!,
  runningOf: (mirror) => (mirror === 'kept' ? { id: 'd-1' } : null),
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('the drills metric families', () => {
  it('say which mirror is overdue against its objective, leave out mirrors without one, and give the last success and the running drill', async () => {
    const text = await renderPrometheus(drillMetrics(source, ['late', 'kept', 'never', 'free']))
    expect(sample(text, 'mirrorboard_drill_overdue{mirror="late"}')).toBe(1)
    expect(sample(text, 'mirrorboard_drill_overdue{mirror="kept"}')).toBe(0)
    expect(sample(text, 'mirrorboard_drill_overdue{mirror="never"}')).toBe(1)
    expect(text).not.toContain('mirrorboard_drill_overdue{mirror="free"}')
    expect(sample(text, 'mirrorboard_drill_interval_seconds{mirror="late"}')).toBe(7 * 24 * 60 * 60)
    expect(text).not.toContain('mirrorboard_drill_interval_seconds{mirror="free"}')
    expect(sample(text, 'mirrorboard_drill_last_success_timestamp_seconds{mirror="late"}')).toBe((NOW - 9 * DAY_MS) / 1000)
    expect(text).not.toContain('mirrorboard_drill_last_success_timestamp_seconds{mirror="never"}')
    expect(sample(text, 'mirrorboard_drill_running{mirror="kept"}')).toBe(1)
    expect(sample(text, 'mirrorboard_drill_running{mirror="free"}')).toBe(0)
  })
})
