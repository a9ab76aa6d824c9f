/**
 * The built-in alert state machine, as Prometheus runs its rules: each evaluation asks every rule about
 * every mirror (lib/alerts/rules.ts); a condition that starts holding makes a *pending* alert, one that held
 * for the rule's `for` makes it *firing*, and a firing alert whose condition no longer holds (or whose mirror
 * is gone) is *resolved*. A pending alert whose condition goes away is dropped without a trace. Pure: the
 * server keeps the state between evaluations and acts on the changes (server/alerts/).
 */
import type { MirrorFigures } from './figures'
import { ALERT_RULES, LAG_GROWTH_WINDOW_SECONDS, type AlertRule, type AlertRuleName, type AlertSeverity, type LagSample } from './rules'

export interface AlertInstance {
  /** Unique over time: the rule, mirror, labels and the moment its condition began. */
  readonly id: string
  readonly rule: AlertRuleName
  readonly severity: AlertSeverity
  readonly state: 'pending' | 'firing' | 'resolved'
  readonly mirror: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
  readonly summary: string
  /** The topic (and partition) the finding is about, when it is about one. */
  readonly topic?: string
  readonly partition?: number
  /** When the condition began to hold (Prometheus' activeAt). */
  readonly since: number
  /** When it started firing (since + for, at an evaluation); null while pending. */
  readonly firedAt: number | null
  readonly resolvedAt: number | null
}

export interface AlertChange {
  /** `firing`: started firing; `resolved`: stopped; `updated`: a firing alert's value or summary moved. */
  readonly kind: 'firing' | 'resolved' | 'updated'
  readonly alert: AlertInstance
}

export interface EvaluatorState {
  /** Pending and firing alerts by key. */
  readonly active: ReadonlyMap<string, AlertInstance>
  /** Each mirror's total offset lag at past evaluations, for rules that look back (MirrorLagGrowing). */
  readonly lagHistory: ReadonlyMap<string, readonly LagSample[]>
}

export const EMPTY_EVALUATOR_STATE: EvaluatorState = { active: new Map(), lagHistory: new Map() }

function keyOf(rule: AlertRuleName, mirror: string, labels: Readonly<Record<string, string>>): string {
  return [rule, mirror, ...Object.keys(labels).sort().map((name) => `${name}=${labels[name]}`)].join('\u0000')
}

/** The key an alert is kept under between evaluations (a restarted server puts its firing alerts back by it). */
export function alertKey(alert: Pick<AlertInstance, 'rule' | 'mirror' | 'labels'>): string {
  return keyOf(alert.rule, alert.mirror, alert.labels)
}

function idOf(rule: AlertRuleName, mirror: string, labels: Readonly<Record<string, string>>, since: number): string {
  const extra = Object.keys(labels).sort().map((name) => labels[name]).join('.')
  return `${since.toString(36)}.${rule}.${mirror}${extra === '' ? '' : `.${extra}`}`
}

/** History kept a little longer than the longest look-back, so the window's oldest sample is there. */
const HISTORY_KEEP_MS = (LAG_GROWTH_WINDOW_SECONDS + 60) * 1000

export function evaluateAlerts(
  state: EvaluatorState,
  mirrors: readonly MirrorFigures[],
  now: number,
  rules: readonly AlertRule[] = ALERT_RULES,
): { state: EvaluatorState; changes: AlertChange[] } {
  const lagHistory = new Map<string, readonly LagSample[]>()
  for (const figures of mirrors) {
    const past = (state.lagHistory.get(figures.mirror) ?? []).filter(([t]) => t >= now - HISTORY_KEEP_MS && t < now)
    lagHistory.set(figures.mirror, figures.totalOffsetLag === null ? past : [...past, [now, figures.totalOffsetLag]])
  }
  const active = new Map<string, AlertInstance>()
  const changes: AlertChange[] = []
  for (const figures of mirrors) {
    for (const rule of rules) {
      const finding = rule.evaluate(figures, lagHistory.get(figures.mirror) ?? [])
      if (finding === null) continue
      const labels = finding.labels ?? {}
      const key = keyOf(rule.name, figures.mirror, labels)
      const previous = state.active.get(key)
      const since = previous?.since ?? now
      const due = now - since >= rule.forSeconds * 1000
      const firing = previous?.state === 'firing' || due
      const alert: AlertInstance = {
        id: previous?.id ?? idOf(rule.name, figures.mirror, labels, since),
        rule: rule.name,
        severity: rule.severity,
        state: firing ? 'firing' : 'pending',
        mirror: figures.mirror,
        labels,
        value: finding.value,
        summary: finding.summary,
        ...(finding.topic === undefined ? {} : { topic: finding.topic }),
        ...(finding.partition === undefined ? {} : { partition: finding.partition }),
        since,
        firedAt: firing ? (previous?.firedAt ?? now) : null,
        resolvedAt: null,
      }
      active.set(key, alert)
      if (firing && previous?.state !== 'firing') changes.push({ kind: 'firing', alert })
      else if (firing && (previous?.summary !== alert.summary || previous.value !== alert.value)) changes.push({ kind: 'updated', alert })
    }
  }
  for (const [key, previous] of state.active) {
    if (active.has(key) || previous.state !== 'firing') continue
    changes.push({ kind: 'resolved', alert: { ...previous, state: 'resolved', resolvedAt: now } })
  }
  return { state: { active, lagHistory }, changes }
}
