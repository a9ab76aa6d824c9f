import 'server-only'
import type { DrillCadence } from '@/lib/drill/cadence'
import type { MetricFamily } from '@/server/observability/metrics'

/**
 * The drills' metric families: each mirror's drill cadence (lib/drill/cadence.ts) as GET /api/metrics exposes
 * it, from the same figures the mirror summaries show and the built-in DrillOverdue rule reads, so a scrape, the
 * mirror page and an alert never disagree. `mirrorboard_drill_overdue` is exposed only for mirrors that set a
 * `drillIntervalDays` objective (absent is "no objective", not "on schedule").
 */

/** What the families read of the drills (server/drills/drills.ts). */
export interface DrillCadenceSource {
  cadence(mirror: string): DrillCadence
  runningOf(mirror: string): { id: string } | null
}

export function drillMetrics(drills: DrillCadenceSource, mirrors: readonly string[]): MetricFamily[] {
  const overdue: MetricFamily = {
    name: 'mirrorboard_drill_overdue',
    help: "1 when the mirror's drillIntervalDays objective is breached (its last successful drill is older, or there has been none), 0 when met; absent when the mirror sets no objective.",
    type: 'gauge',
    samples: [],
  }
  const interval: MetricFamily = { name: 'mirrorboard_drill_interval_seconds', help: "The mirror's drillIntervalDays objective, in seconds; absent when it sets none.", type: 'gauge', samples: [] }
  const lastSuccess: MetricFamily = {
    name: 'mirrorboard_drill_last_success_timestamp_seconds',
    help: "When the mirror's last successful drill finished (Unix time); absent when none has succeeded.",
    type: 'gauge',
    samples: [],
  }
  const running: MetricFamily = { name: 'mirrorboard_drill_running', help: 'Whether a drill of the mirror is running (1) or not (0).', type: 'gauge', samples: [] }
  for (const mirror of mirrors) {
    const cadence = drills.cadence(mirror)
    if (cadence.intervalDays !== null) {
      overdue.samples.push({ labels: { mirror }, value: cadence.overdue === true ? 1 : 0 })
      interval.samples.push({ labels: { mirror }, value: cadence.intervalDays * 24 * 60 * 60 })
    }
    if (cadence.lastSucceededAt !== null) lastSuccess.samples.push({ labels: { mirror }, value: cadence.lastSucceededAt / 1000 })
    running.samples.push({ labels: { mirror }, value: drills.runningOf(mirror) === null ? 0 : 1 })
  }
  return [overdue, interval, lastSuccess, running]
}
