import { z } from 'zod'
import { ALERT_RULE_NAMES } from '@/lib/alerts/rules'
import { checkReceiverUrl } from '@/lib/alerts/receiver-url'
import { Name, NonNegativeInt, PartitionIndex, Timestamp, printableId } from './common'

/** Alerts of the built-in rules (lib/alerts/rules.ts), their receivers and silences (API.md Round 3 → Alerts). */

export const AlertRuleName = z.enum(ALERT_RULE_NAMES)
export const AlertSeverity = z.enum(['critical', 'warning'])
export const AlertState = z.enum(['firing', 'resolved'])

export const Alert = z.object({
  id: z.string(),
  rule: AlertRuleName,
  severity: AlertSeverity,
  state: AlertState,
  mirror: Name,
  topic: Name.optional(),
  partition: PartitionIndex.optional(),
  /** When the condition began to hold; it fired once it had held for the rule's `for`. */
  since: Timestamp,
  firedAt: Timestamp,
  resolvedAt: Timestamp.optional(),
  summary: z.string(),
  /** The rule's figure (FAILED partitions, records, …), as Prometheus' `$value`. */
  value: z.number(),
  /** Labels beyond the mirror that tell alerts of one rule apart (OperationFailed: `operation`, `kind`). */
  labels: z.record(z.string(), z.string()),
  /** A silence of its mirror keeps it from being delivered. */
  silenced: z.boolean(),
  /** The rule's section of docs/runbook.md. */
  runbook: z.string(),
})
export type Alert = z.infer<typeof Alert>

export const AlertsQuery = z.object({
  state: AlertState.optional().describe('Only firing or only resolved alerts; both by default.'),
  mirror: Name.optional(),
})
export const AlertList = z.object({ alerts: z.array(Alert) })
export type AlertList = z.infer<typeof AlertList>

export const ReceiverFormat = z.enum(['webhook', 'alertmanager', 'slack'])
export type ReceiverFormat = z.infer<typeof ReceiverFormat>

export const ReceiverUrl = z
  .string()
  .max(2000)
  .superRefine((text, context) => {
    const checked = checkReceiverUrl(text)
    if (!checked.ok) context.addIssue({ code: 'custom', message: checked.reason })
  })

export const CreateReceiverRequest = z.object({
  name: Name,
  url: ReceiverUrl.describe('http or https; for `alertmanager` the Alertmanager\'s base URL. Never answered back: receivers show it redacted.'),
  format: ReceiverFormat,
})
export type CreateReceiverRequest = z.infer<typeof CreateReceiverRequest>

export const Delivery = z.object({
  at: Timestamp,
  ok: z.boolean(),
  /** The receiver's HTTP status, when it answered. */
  status: z.number().int().optional(),
  error: z.string().optional(),
  /** Attempts made for this delivery (retries with backoff after a failure). */
  attempts: NonNegativeInt,
  /** What was delivered: an alert's rule and state, or `test`. */
  what: z.string(),
})
export type Delivery = z.infer<typeof Delivery>

export const Receiver = z.object({
  name: Name,
  /** Redacted: scheme, host and port, plain path words; no credentials, path tokens or query values. */
  url: z.string(),
  format: ReceiverFormat,
  createdAt: Timestamp,
  lastDelivery: Delivery.nullable(),
  /** Deliveries waiting for a retry. */
  retrying: NonNegativeInt,
})
export type Receiver = z.infer<typeof Receiver>

export const ReceiverList = z.object({ receivers: z.array(Receiver) })
export type ReceiverList = z.infer<typeof ReceiverList>
export const ReceiverParams = z.object({ name: Name })
export const ReceiverTestResponse = z.object({ delivery: Delivery })

export const Silence = z.object({
  id: z.string(),
  mirror: Name,
  until: Timestamp,
  comment: z.string(),
  createdAt: Timestamp,
  createdBy: z.string(),
})
export type Silence = z.infer<typeof Silence>

export const CreateSilenceRequest = z.object({
  mirror: Name,
  until: Timestamp.describe('When the silence ends (epoch ms, in the future; at most 30 days ahead).'),
  comment: printableId(500),
})
export type CreateSilenceRequest = z.infer<typeof CreateSilenceRequest>

export const SilenceList = z.object({ silences: z.array(Silence) })
export type SilenceList = z.infer<typeof SilenceList>
export const SilenceParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) })
