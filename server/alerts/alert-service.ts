import 'server-only'
// Over 400 lines: the built-in alerting is one state (alerts, receivers, silences, what was delivered) that the
// evaluation loop, the deliveries and the API change together and persist as one file; split, each part would
// reach into the others'.
import { randomBytes } from 'node:crypto'
import { EMPTY_EVALUATOR_STATE, alertKey, evaluateAlerts, type AlertInstance, type EvaluatorState } from '@/lib/alerts/evaluate'
import type { MirrorFigures } from '@/lib/alerts/figures'
import { deliveryRequest, type DeliveryContent, type PayloadAlert } from '@/lib/alerts/payloads'
import { checkReceiverUrl, redactUrl } from '@/lib/alerts/receiver-url'
import { ruleNamed } from '@/lib/alerts/rules'
import type { Alert, CreateReceiverRequest, CreateSilenceRequest, Delivery, Receiver, Silence } from '@/lib/api/alerts'
import { CodedError } from '@/lib/coded-error'
import type { Logger } from '@/server/observability/logger'
import { postOnce, postWithRetries, type AttemptResult } from './delivery'
import { AlertStore, type AlertsFile, type StoredAlert, type StoredReceiver } from './alert-store'
import { pointsAtThisServer } from './self-check'

/** How often the rules are evaluated: "within the rule's for plus one evaluation" is the delivery promise. */
export const EVALUATION_INTERVAL_MS = 5_000
/** Waits between the attempts of a failed delivery (5 attempts in all). */
export const DELIVERY_BACKOFF_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000]
const DELIVERY_TIMEOUT_MS = 5_000
/** Alertmanager forgets an alert that is not sent again before its endsAt: firing ones are sent again this often. */
const ALERTMANAGER_RESEND_MS = 60_000
const RESOLVED_KEPT = 500
const MAX_SILENCE_MS = 30 * 24 * 60 * 60 * 1000

export class AlertError extends CodedError<'VALIDATION_FAILED' | 'NOT_FOUND' | 'CONFLICT'> {}

export interface AlertServiceOptions {
  readonly dataDir: string
  /** Every mirror's figures now (server/alerts/mirror-alert-figures.ts). */
  readonly figures: () => MirrorFigures[]
  readonly knownMirror: (name: string) => boolean
  readonly publish: (alert: Alert) => void
  readonly log: Logger
  /** The alerts page, for links in what receivers are sent. */
  readonly pageUrl: string
  readonly now?: () => number
  readonly intervalMs?: number
  readonly backoffMs?: readonly number[]
  readonly timeoutMs?: number
  readonly fetch?: typeof fetch
}

interface ReceiverRuntime {
  stored: StoredReceiver
  retrying: number
  deleted: boolean
  lastResendAt: number
}

export class AlertService {
  private evaluator: EvaluatorState = EMPTY_EVALUATOR_STATE
  private resolved: StoredAlert[]
  /** Ids of firing alerts whose firing was delivered (so their resolution is delivered too). */
  private readonly notified = new Set<string>()
  private readonly receivers = new Map<string, ReceiverRuntime>()
  private silences: Silence[]
  private timer: NodeJS.Timeout | null = null
  private evaluating: Promise<void> | null = null
  private closed = false
  private readonly now: () => number

  private constructor(
    private readonly options: AlertServiceOptions,
    private readonly store: AlertStore,
    content: AlertsFile,
  ) {
    this.now = options.now ?? Date.now
    for (const stored of content.receivers) this.receivers.set(stored.name, { stored, retrying: 0, deleted: false, lastResendAt: 0 })
    this.silences = content.silences
    this.resolved = content.alerts.filter((alert) => alert.state === 'resolved')
    // Firing alerts carry on from where the last process left them: not fired again, resolved when they no longer hold.
    const active = new Map<string, AlertInstance>()
    for (const alert of content.alerts) {
      if (alert.state !== 'firing') continue
      const instance: AlertInstance = { ...alert, state: 'firing', resolvedAt: null }
      active.set(alertKey(instance), instance)
      if (alert.notified) this.notified.add(alert.id)
    }
    this.evaluator = { active, lagHistory: new Map() }
  }

  static async open(options: AlertServiceOptions): Promise<AlertService> {
    const { store, content } = await AlertStore.open(options.dataDir, (error) => options.log.warn('the alerts file is damaged; starting without its alerts, receivers and silences', { error }))
    return new AlertService(options, store, content)
  }

  start(): void {
    if (this.timer || this.closed) return
    this.timer = setInterval(() => void this.evaluate(), this.options.intervalMs ?? EVALUATION_INTERVAL_MS)
    this.timer.unref()
    void this.evaluate()
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    for (const receiver of this.receivers.values()) receiver.deleted = true
    await this.evaluating
    await this.store.settled()
  }

  // EVALUATION

  /** One evaluation of every rule over every mirror (the loop runs it; tests call it). */
  evaluate(): Promise<void> {
    this.evaluating ??= this.evaluateOnce()
      .catch((error: unknown) => this.options.log.error('alert evaluation failed', { error }))
      .finally(() => {
        this.evaluating = null
      })
    return this.evaluating
  }

  private async evaluateOnce(): Promise<void> {
    if (this.closed) return
    const now = this.now()
    const { state, changes } = evaluateAlerts(this.evaluator, this.options.figures(), now)
    this.evaluator = state
    let changed = false
    const firing: AlertInstance[] = []
    const resolved: AlertInstance[] = []
    for (const change of changes) {
      this.options.publish(this.toApi(change.alert, now))
      if (change.kind === 'updated') continue
      changed = true
      if (change.kind === 'firing') {
        this.options.log.warn('alert firing', { rule: change.alert.rule, mirror: change.alert.mirror, summary: change.alert.summary })
        if (!this.silenced(change.alert.mirror, now)) firing.push(change.alert)
      } else {
        this.options.log.info('alert resolved', { rule: change.alert.rule, mirror: change.alert.mirror })
        this.resolved.unshift(this.stored(change.alert))
        if (this.notified.delete(change.alert.id) && !this.silenced(change.alert.mirror, now)) resolved.push(change.alert)
      }
    }
    // Firing alerts no one was told of, because a silence covered them, once it has ended.
    for (const alert of this.firing()) {
      if (!this.notified.has(alert.id) && !this.silenced(alert.mirror, now) && !firing.includes(alert)) firing.push(alert)
    }
    for (const alert of firing) this.notified.add(alert.id)
    if (firing.length > 0 || resolved.length > 0) changed = true
    this.resolved = this.resolved.slice(0, RESOLVED_KEPT)
    if (changed) await this.persist()
    if (firing.length > 0) this.deliverToAll({ status: 'firing', alerts: firing, now })
    if (resolved.length > 0) this.deliverToAll({ status: 'resolved', alerts: resolved, now })
    this.resendToAlertmanagers(now)
  }

  private firing(): AlertInstance[] {
    return [...this.evaluator.active.values()].filter((alert) => alert.state === 'firing')
  }

  private silenced(mirror: string, now: number): boolean {
    return this.silences.some((silence) => silence.mirror === mirror && silence.until > now)
  }

  // READS

  list(filter: { state?: 'firing' | 'resolved'; mirror?: string } = {}): Alert[] {
    const now = this.now()
    const firing = filter.state === 'resolved' ? [] : this.firing().sort((a, b) => (b.firedAt ?? 0) - (a.firedAt ?? 0))
    const resolved = filter.state === 'firing' ? [] : this.resolved
    return [...firing.map((alert) => this.toApi(alert, now)), ...resolved.map((alert) => this.toApiStored(alert, now))].filter(
      (alert) => filter.mirror === undefined || alert.mirror === filter.mirror,
    )
  }

  listReceivers(): Receiver[] {
    return [...this.receivers.values()].sort((a, b) => a.stored.name.localeCompare(b.stored.name)).map((receiver) => this.receiverView(receiver))
  }

  listSilences(): Silence[] {
    const now = this.now()
    return this.silences.filter((silence) => silence.until > now).sort((a, b) => a.until - b.until)
  }

  // RECEIVERS

  /** `own`: the addresses this server is reached by (the request's, the configured one): a receiver may not point back at them. */
  async addReceiver(request: CreateReceiverRequest, own: readonly URL[]): Promise<Receiver> {
    const checked = checkReceiverUrl(request.url)
    if (!checked.ok) throw new AlertError('VALIDATION_FAILED', `url ${checked.reason}`)
    if (await pointsAtThisServer(checked.url, own)) throw new AlertError('VALIDATION_FAILED', 'url points at this server: alerts would be posted back to it')
    if (this.receivers.has(request.name)) throw new AlertError('CONFLICT', `a receiver named ${request.name} exists`)
    const receiver: ReceiverRuntime = {
      stored: { name: request.name, url: request.url, format: request.format, createdAt: this.now(), lastDelivery: null },
      retrying: 0,
      deleted: false,
      lastResendAt: 0,
    }
    this.receivers.set(request.name, receiver)
    await this.persist()
    this.options.log.info('alert receiver added', { receiver: request.name, format: request.format, url: redactUrl(request.url) })
    // An operator adding a receiver during an incident expects to hear of it.
    const now = this.now()
    const firing = this.firing().filter((alert) => !this.silenced(alert.mirror, now))
    if (firing.length > 0) this.deliver(receiver, { status: 'firing', alerts: firing, now })
    return this.receiverView(receiver)
  }

  async deleteReceiver(name: string): Promise<void> {
    const receiver = this.receivers.get(name)
    if (!receiver) throw new AlertError('NOT_FOUND', `no receiver named ${name}`)
    receiver.deleted = true
    this.receivers.delete(name)
    await this.persist()
  }

  /** One attempt now, with a test alert; the result becomes the receiver's last delivery. */
  async testReceiver(name: string): Promise<Delivery> {
    const receiver = this.receivers.get(name)
    if (!receiver) throw new AlertError('NOT_FOUND', `no receiver named ${name}`)
    const now = this.now()
    const alert: PayloadAlert = {
      id: `test-${now.toString(36)}`,
      rule: 'MirrorboardTestAlert',
      severity: 'warning',
      state: 'firing',
      mirror: 'test',
      since: now,
      firedAt: now,
      summary: `A test alert from Mirrorboard to receiver ${name}: this receiver works.`,
      value: 0,
      labels: {},
      silenced: false,
      runbook: 'docs/runbook.md#alerts',
    }
    const content: DeliveryContent = { receiver: name, status: 'firing', alerts: [alert], sentAt: now }
    const result = await postOnce(deliveryRequest(receiver.stored.format, receiver.stored.url, content, this.options.pageUrl), this.postOptions())
    const delivery = this.record(receiver, result, 1, 'test')
    await this.persist()
    return delivery
  }

  private deliverToAll(batch: { status: 'firing' | 'resolved'; alerts: readonly AlertInstance[]; now: number }): void {
    for (const receiver of this.receivers.values()) this.deliver(receiver, batch)
  }

  private deliver(receiver: ReceiverRuntime, batch: { status: 'firing' | 'resolved'; alerts: readonly AlertInstance[]; now: number }): void {
    const alerts = batch.alerts.map((alert) => this.toApi(alert, batch.now))
    const content: DeliveryContent = { receiver: receiver.stored.name, status: batch.status, alerts, sentAt: batch.now }
    const request = deliveryRequest(receiver.stored.format, receiver.stored.url, content, this.options.pageUrl)
    const what = `${batch.alerts.map((alert) => alert.rule).join(', ')} ${batch.status}`
    if (receiver.stored.format === 'alertmanager' && batch.status === 'firing') receiver.lastResendAt = batch.now
    receiver.retrying += 1
    void postWithRetries(request, {
      ...this.postOptions(),
      backoffMs: this.options.backoffMs ?? DELIVERY_BACKOFF_MS,
      cancelled: () => receiver.deleted || this.closed,
      onAttempt: (result, attempt, willRetry) => {
        if (receiver.deleted) return
        this.record(receiver, result, attempt, what)
        if (!result.ok) {
          this.options.log.warn(willRetry ? 'alert delivery failed; retrying' : 'alert delivery failed; giving up', {
            receiver: receiver.stored.name,
            url: redactUrl(receiver.stored.url),
            attempt,
            status: result.status,
            error: result.error,
          })
        }
        void this.persist()
      },
    }).finally(() => {
      receiver.retrying -= 1
    })
  }

  private resendToAlertmanagers(now: number): void {
    const firing = this.firing().filter((alert) => this.notified.has(alert.id) && !this.silenced(alert.mirror, now))
    if (firing.length === 0) return
    for (const receiver of this.receivers.values()) {
      if (receiver.stored.format !== 'alertmanager' || now - receiver.lastResendAt < ALERTMANAGER_RESEND_MS) continue
      this.deliver(receiver, { status: 'firing', alerts: firing, now })
    }
  }

  private record(receiver: ReceiverRuntime, result: AttemptResult, attempts: number, what: string): Delivery {
    const delivery: Delivery = {
      at: this.now(),
      ok: result.ok,
      ...(result.status === undefined ? {} : { status: result.status }),
      ...(result.error === undefined ? {} : { error: result.error }),
      attempts,
      what,
    }
    receiver.stored = { ...receiver.stored, lastDelivery: delivery }
    return delivery
  }

  private postOptions() {
    return { timeoutMs: this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS, fetch: this.options.fetch }
  }

  // SILENCES

  async addSilence(request: CreateSilenceRequest, createdBy: string): Promise<Silence> {
    const now = this.now()
    if (request.until <= now) throw new AlertError('VALIDATION_FAILED', 'until must be in the future')
    if (request.until > now + MAX_SILENCE_MS) throw new AlertError('VALIDATION_FAILED', 'until must be at most 30 days ahead')
    if (!this.options.knownMirror(request.mirror)) throw new AlertError('VALIDATION_FAILED', `no mirror named ${request.mirror}`)
    const silence: Silence = { id: randomBytes(9).toString('base64url'), mirror: request.mirror, until: request.until, comment: request.comment, createdAt: now, createdBy }
    // Ended silences go when a new one comes: the file keeps what still matters.
    this.silences = [...this.silences.filter((existing) => existing.until > now), silence]
    await this.persist()
    return silence
  }

  /** The silence of this id that has not ended; NOT_FOUND otherwise. */
  activeSilence(id: string): Silence {
    const now = this.now()
    const silence = this.silences.find((existing) => existing.id === id && existing.until > now)
    if (!silence) throw new AlertError('NOT_FOUND', `no active silence ${id}`)
    return silence
  }

  async deleteSilence(id: string): Promise<void> {
    this.activeSilence(id)
    this.silences = this.silences.filter((existing) => existing.id !== id)
    await this.persist()
  }

  // SHAPES

  private toApi(alert: AlertInstance, now: number): Alert {
    return {
      id: alert.id,
      rule: alert.rule,
      severity: alert.severity,
      state: alert.state === 'resolved' ? 'resolved' : 'firing',
      mirror: alert.mirror,
      ...(alert.topic === undefined ? {} : { topic: alert.topic }),
      ...(alert.partition === undefined ? {} : { partition: alert.partition }),
      since: alert.since,
      firedAt: alert.firedAt ?? alert.since,
      ...(alert.resolvedAt === null ? {} : { resolvedAt: alert.resolvedAt }),
      summary: alert.summary,
      value: alert.value,
      labels: { ...alert.labels },
      silenced: this.silenced(alert.mirror, now),
      runbook: `docs/runbook.md#${ruleNamed(alert.rule)?.runbook ?? 'alerts'}`,
    }
  }

  private toApiStored(alert: StoredAlert, now: number): Alert {
    const { notified: _notified, ...rest } = alert
    return { ...rest, silenced: this.silenced(alert.mirror, now) }
  }

  private stored(alert: AlertInstance): StoredAlert {
    const { silenced: _silenced, ...api } = this.toApi(alert, this.now())
    return { ...api, notified: this.notified.has(alert.id) }
  }

  private receiverView(receiver: ReceiverRuntime): Receiver {
    const { stored } = receiver
    return { name: stored.name, url: redactUrl(stored.url), format: stored.format, createdAt: stored.createdAt, lastDelivery: stored.lastDelivery, retrying: Math.max(0, receiver.retrying) }
  }

  private persist(): Promise<void> {
    const content: AlertsFile = {
      version: 1,
      receivers: [...this.receivers.values()].map((receiver) => receiver.stored),
      silences: this.silences,
      alerts: [...this.firing().map((alert) => this.stored(alert)), ...this.resolved],
    }
    return this.store.save(content).catch((error: unknown) => this.options.log.error('could not save the alerts file', { error }))
  }
}

