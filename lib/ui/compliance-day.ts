import { formatInteger } from './format'

/**
 * How a day's cell in the RPO compliance strip reads (the objectives panel): grey not recorded, green when 99.9 %
 * of its minutes met the objective, amber at 99 % or when the minutes short of it were unknown only (a source
 * silent: never met, but no breach either), red when breached minutes took it below 99 %. A new mirror whose
 * first minute came before its first fetch is amber, not red.
 */
export type ComplianceDayTone = 'notRecorded' | 'met' | 'short' | 'breached'

export interface ComplianceDayCount {
  readonly met: number
  readonly breached: number
  readonly unknown: number
  readonly metShare: number | null
}

export function complianceDayTone(count: ComplianceDayCount): ComplianceDayTone {
  if (count.metShare === null) return 'notRecorded'
  if (count.metShare >= 0.999) return 'met'
  if (count.metShare >= 0.99 || count.breached === 0) return 'short'
  return 'breached'
}

/** "2026-12-06: RPO met 99.3 % of 1,440 minutes, breached 10": what the cell says to a screen reader and on hover. */
export function complianceDayLabel(count: ComplianceDayCount & { readonly from: number }, share: (value: number) => string): string {
  const day = new Date(count.from).toISOString().slice(0, 10)
  if (count.metShare === null) return `${day}: no minute recorded`
  const minutes = count.met + count.breached + count.unknown
  return `${day}: RPO met ${share(count.metShare)} of ${formatInteger(minutes)} ${minutes === 1 ? 'minute' : 'minutes'}${count.breached > 0 ? `, breached ${formatInteger(count.breached)}` : ''}${count.unknown > 0 ? `, unknown ${formatInteger(count.unknown)}` : ''}`
}
