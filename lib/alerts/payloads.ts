/**
 * What a receiver is sent, by format (pure: the server posts it, server/alerts/delivery.ts):
 * - `webhook`: `{ version: 1, receiver, status, alerts, sentAt }`, the alerts in the API's shape;
 * - `alertmanager`: Alertmanager's `POST /api/v2/alerts` list (labels, annotations, startsAt, endsAt), to the
 *   base URL given plus `/api/v2/alerts`; a firing alert's endsAt is a few minutes ahead, so it is sent again
 *   while it fires (Prometheus does the same), and resolves by itself if the server stops sending;
 * - `slack`: an incoming-webhook message `{ text }` in Slack's mrkdwn.
 */
import type { Alert, ReceiverFormat } from '../api/alerts'

/** An alert as sent: the API's shape, with a free rule name so a test alert can say what it is. */
export type PayloadAlert = Omit<Alert, 'rule'> & { readonly rule: string }

export interface DeliveryContent {
  readonly receiver: string
  readonly status: 'firing' | 'resolved'
  readonly alerts: readonly PayloadAlert[]
  readonly sentAt: number
}

export interface DeliveryRequest {
  readonly url: string
  readonly body: unknown
}

/** How far ahead a firing alert's endsAt lies for Alertmanager: three resends (every minute) may be missed. */
export const ALERTMANAGER_ENDS_AFTER_MS = 4 * 60_000

export function alertmanagerUrl(base: string): string {
  const url = new URL(base)
  if (!/\/api\/v2\/alerts\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v2/alerts`
  return url.toString()
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function deliveryRequest(format: ReceiverFormat, url: string, content: DeliveryContent, alertsPageUrl: string): DeliveryRequest {
  switch (format) {
    case 'webhook':
      return { url, body: { version: 1, receiver: content.receiver, status: content.status, alerts: content.alerts, sentAt: content.sentAt } }
    case 'alertmanager':
      return {
        url: alertmanagerUrl(url),
        body: content.alerts.map((alert) => ({
          labels: { alertname: alert.rule, severity: alert.severity, mirror: alert.mirror, source: 'mirrorboard', ...alert.labels },
          annotations: { summary: alert.summary, runbook_url: alert.runbook },
          startsAt: iso(alert.since),
          endsAt: iso(alert.resolvedAt ?? content.sentAt + ALERTMANAGER_ENDS_AFTER_MS),
          generatorURL: alertsPageUrl,
        })),
      }
    case 'slack':
      return { url, body: { text: slackText(content, alertsPageUrl) } }
  }
}

function slackText(content: DeliveryContent, alertsPageUrl: string): string {
  const lines = content.alerts.map((alert) => {
    const mark = alert.state === 'resolved' ? ':large_green_circle: *RESOLVED*' : alert.severity === 'critical' ? ':red_circle: *FIRING*' : ':large_orange_circle: *FIRING*'
    return `${mark} ${alert.rule} (${alert.severity}) · mirror ${alert.mirror}\n${alert.summary}`
  })
  return `${lines.join('\n')}\n<${alertsPageUrl}|Open the alerts page>`
}
