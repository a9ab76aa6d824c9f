import { describe, expect, it } from 'vitest'
import { alertmanagerUrl, deliveryRequest, type PayloadAlert } from './payloads'

const alert: PayloadAlert = {
  id: 'a1',
  rule: 'PartitionFailed',
  severity: 'critical',
  state: 'firing',
  mirror: 'dr',
  since: Date.UTC(2026, 0, 1, 3, 0, 0),
  firedAt: Date.UTC(2026, 0, 1, 3, 0, 30),
  summary: '2 partitions of mirror dr FAILED: orders-0, orders-1',
  value: 2,
  labels: {},
  silenced: false,
  runbook: 'docs/runbook.md#partitionfailed',
}
const content = { receiver: 'ops', status: 'firing' as const, alerts: [alert], sentAt: Date.UTC(2026, 0, 1, 3, 0, 31) }
const page = 'http://mirrorboard.example/alerts'

describe('delivery payloads', () => {
  it('webhook: the API alerts with the receiver, status and time', () => {
    expect(deliveryRequest('webhook', 'http://hook.example/x', content, page)).toEqual({ url: 'http://hook.example/x', body: { version: 1, receiver: 'ops', status: 'firing', alerts: [alert], sentAt: content.sentAt } })
  })

  it("alertmanager: its v2 alert list at the base URL's /api/v2/alerts, endsAt ahead while firing and the resolution time once resolved", () => {
    const firing = deliveryRequest('alertmanager', 'http://am.example:9093', content, page)
    expect(firing).toEqual({
      url: 'http://am.example:9093/api/v2/alerts',
      body: [
        {
          labels: { alertname: 'PartitionFailed', severity: 'critical', mirror: 'dr', source: 'mirrorboard' },
          annotations: { summary: alert.summary, runbook_url: alert.runbook },
          startsAt: '2026-01-01T03:00:00.000Z',
          endsAt: '2026-01-01T03:04:31.000Z',
          generatorURL: page,
        },
      ],
    })
    const resolved = deliveryRequest('alertmanager', 'http://am.example:9093/', { ...content, status: 'resolved', alerts: [{ ...alert, state: 'resolved', resolvedAt: Date.UTC(2026, 0, 1, 3, 5) }] }, page)
    expect((resolved.body as Array<{ endsAt: string }>)[0]!.endsAt).toBe('2026-01-01T03:05:00.000Z')
    expect(alertmanagerUrl('http://am.example/prefix/api/v2/alerts')).toBe('http://am.example/prefix/api/v2/alerts')
    expect(alertmanagerUrl('http://am.example/prefix/')).toBe('http://am.example/prefix/api/v2/alerts')
  })

  it('slack: one mrkdwn line per alert and a link to the alerts page', () => {
    expect(deliveryRequest('slack', 'https://hooks.slack.example/services/x', content, page).body).toEqual({
      text: ':red_circle: *FIRING* PartitionFailed (critical) · mirror dr\n2 partitions of mirror dr FAILED: orders-0, orders-1\n<http://mirrorboard.example/alerts|Open the alerts page>',
    })
  })
})
