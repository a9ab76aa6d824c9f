/**
 * How an alert's severity and state look, one table (like lib/ui/state-style.ts for partition states): a glyph
 * and a word beside the colour, so nothing is told by colour alone.
 */
import type { AlertSeverity } from '../alerts/rules'
import { TONE_STYLE } from './state-style'

export const SEVERITY_STYLE = {
  critical: { label: 'Critical', icon: '✕', badge: TONE_STYLE.danger.badge, bar: TONE_STYLE.danger.solid },
  warning: { label: 'Warning', icon: '▲', badge: TONE_STYLE.paused.badge, bar: TONE_STYLE.paused.solid },
} as const satisfies Record<AlertSeverity, { label: string; icon: string; badge: string; bar: string }>

export const RESOLVED_STYLE = { label: 'Resolved', icon: '✓', badge: TONE_STYLE.healthy.badge } as const

/** How receiver formats are named on the page. */
export const RECEIVER_FORMAT_LABEL = { webhook: 'Webhook (JSON)', alertmanager: 'Alertmanager', slack: 'Slack incoming webhook' } as const
