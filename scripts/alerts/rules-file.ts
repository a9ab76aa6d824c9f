// deploy/prometheus/rules.yml as generated from the rules table (lib/alerts/rules.ts).
import { stringify } from 'yaml'
import { ALERT_RULES, RECORDING_RULES } from '@/lib/alerts/rules'

export const RULES_FILE = 'deploy/prometheus/rules.yml'

const HEADER = [
  '# Mirrorboard recording and alerting rules for Prometheus.',
  '# Generated from lib/alerts/rules.ts (the table the server evaluates too) by `npx tsx scripts/alerts/write-rules.ts`:',
  '# edit the table, not this file. runbook_url points into docs/runbook.md of this repository; prefix your copy\'s URL.',
  '',
].join('\n')

function duration(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`
}

export function rulesFileText(): string {
  const document = {
    groups: [
      { name: 'mirrorboard.recording', rules: RECORDING_RULES.map(({ record, expr }) => ({ record, expr })) },
      {
        name: 'mirrorboard.alerts',
        rules: ALERT_RULES.map((rule) => ({
          alert: rule.name,
          expr: rule.expr,
          ...(rule.forSeconds > 0 ? { for: duration(rule.forSeconds) } : {}),
          labels: { severity: rule.severity },
          annotations: { summary: rule.summary, description: rule.description, runbook_url: `docs/runbook.md#${rule.runbook}` },
        })),
      },
    ],
  }
  return HEADER + stringify(document, { lineWidth: 0 })
}
