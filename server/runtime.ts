import 'server-only'
import { operationRtoMs, switchoverTimes } from '@/lib/failover/recovery-time'
import path from 'node:path'
import packageJson from '@/package.json'
import { AuditLog } from './audit/audit-log'
import { ClusterLinks } from './cluster/links'
import { ClusterRegistry } from './cluster/registry'
import { readRuntimeConfig, type RuntimeConfig } from './config'
import { DemoEnvironment } from './demo/demo-environment'
import { Auth, SessionStore, loadTokens } from './http/auth'
import { ApiTokenStore } from './http/api-token-store'
import { EventHub } from './http/events'
import { logger } from './observability/logger'
import { installShutdownHooks, type ShutdownProgress } from './shutdown'
import { MetricsRegistry } from './observability/metrics'
import { MirrorEngine, type EngineOptions } from './engine/engine'
import { toOperation } from './api/mirror-api'
import type { SourceCluster } from './cluster/ports'
import { OperationEventPayloads } from './http/events-operation-delta'
import { LagArchive } from './engine/lag/lag-archive'
import { OperationStore } from './engine/operations/operation-store'
import { ensurePrivateDirectory } from './util/private-directory'
import { startSplitBrainWatch, type SplitBrainWatch } from './engine/failover/split-brain-watch'
import { mirrorMetricsCollector } from './engine/mirror-metrics'
import { mirrorAlertFigures } from './engine/mirror-alert-figures'
import { AlertService } from './alerts/alert-service'
import { createVerifier } from './verification/verifier-wiring'
import { createDrills } from './drills/drill-wiring'
import type { Drills } from './drills/drills'
import type { Verifier } from './verification/verifier'
import { timedSource } from './cluster/timed-source'
import type { Logger } from './observability/logger'
import { loadRolesFile, openProviderSignIn, type ProviderSignIn } from './identity/provider-sign-in'
import { HaRuntime } from './ha/ha-runtime'
import type { MirrorOwnership } from './engine/ownership'
import type { SharedOperations } from './engine/operations/operation-store'

/**
 * The composition root: the one place that builds clusters, the engine and stores.
 *
 * Next.js loads instrumentation and route handlers as separate bundles, so a module-level singleton
 * would exist twice; the runtime lives on globalThis, which both share (and which survives dev reloads).
 */
export interface Runtime {
  readonly version: string
  readonly config: RuntimeConfig
  readonly startedAt: number
  /** The live stream behind GET /api/v1/events. */
  readonly events: EventHub
  readonly audit: AuditLog
  readonly auth: Auth
  /** Sign-in through the company's identity provider; null unless MIRRORBOARD_OIDC_ISSUER is set. */
  readonly identity: ProviderSignIn | null
  readonly clusters: ClusterRegistry
  /** The KIP-1279 mirroring engine over the registry's clusters. */
  readonly engine: MirrorEngine
  /** The split-brain guard over the engine's failed-over mirrors (the API's `splitBrain` field). */
  readonly splitBrain: SplitBrainWatch
  /** Byte-for-byte verifications of mirrors (one runs by itself after every failover). */
  readonly verifier: Verifier
  /** Failovers rehearsed on copies of the destination (server/drills/). */
  readonly drills: Drills
  /** Collectors behind GET /api/metrics; the engine registers its mirror families here. */
  readonly metrics: MetricsRegistry
  /** Built-in alerting: the rules evaluated over the engine's figures, receivers, silences (server/alerts/). */
  readonly alerts: AlertService
  /** The demo environment (workloads, faults, scenarios); null unless MIRRORBOARD_DEMO=1. */
  readonly demo: DemoEnvironment | null
  /** Instances sharing the work through the control cluster (server/ha/); null unless MIRRORBOARD_CONTROL_BOOTSTRAP is set. */
  readonly ha?: HaRuntime | null
  close(): Promise<void>
}

const holder = globalThis as typeof globalThis & { __mirrorboardRuntime?: Promise<Runtime> }

async function createRuntime(): Promise<Runtime> {
  const config = readRuntimeConfig()
  const log = logger.child({ module: 'runtime' })
  await ensurePrivateDirectory(config.dataDir, log)
  const events = new EventHub()
  // Several instances: each entry is copied to the shared audit topic, whose entries (every instance's) feed the stream.
  let sharedAudit: { send(): void } | null = null
  const audit = await AuditLog.open(path.join(config.dataDir, 'audit', 'audit.jsonl'), {
    retention: config.auditRetention,
    onAppend: (entry) => (sharedAudit ? sharedAudit.send() : events.publish('audit', entry)),
    onDamagedLine: (info) => log.warn('skipped a damaged audit log line', info),
  })
  const tokens = await loadTokens(config.dataDir, config.tokens, log)
  const rules = await loadRolesFile(config.rolesFile)
  const identity = config.oidc === null ? null : await openProviderSignIn(config.oidc, config.dataDir)
  const sessions = await SessionStore.open(config.dataDir, Date.now, log)
  const apiTokens = await ApiTokenStore.open(config.dataDir)
  const auth = new Auth(tokens, sessions, {
    log: logger.child({ module: 'auth' }),
    rules,
    sessionIdleMs: config.sessionIdleMs,
    tokenSignIn: config.tokenSignIn,
    apiTokens,
  })
  const clusters = await ClusterRegistry.open({
    dataDir: config.dataDir,
    kafkaAllowedHosts: config.kafkaAllowedHosts,
    fencedWrites: !!config.ha,
    log: logger.child({ module: 'clusters' }),
    publish: (event) => events.publish('cluster', event),
  })
  const metrics = new MetricsRegistry((collector, error) => log.error('a metrics collector failed', { collector, error }), { defaultMetrics: true })
  metrics.register('clusters', () => clusters.collectMetrics({ partitions: config.metricsClusterPartitions }))
  metrics.register('auth', () => auth.metricFamilies())
  metrics.register('http', () => [
    { name: 'mirrorboard_event_subscribers', help: 'Open GET /api/v1/events streams.', type: 'gauge', samples: [{ value: events.subscriberCount }] },
    { name: 'mirrorboard_audit_entries_total', help: 'Entries in the audit log.', type: 'counter', samples: [{ value: audit.lastEntryId }] },
  ])
  // Links between clusters can be cut only in the demo (fault injection); otherwise the engine reaches clusters directly.
  const links = config.demo ? new ClusterLinks() : undefined
  const ha = !config.ha ? null : new HaRuntime(config.ha, { clusters, version: packageJson.version, log: logger.child({ module: 'ha' }) })
  await ha?.prepare()
  // Several instances: whoever signed in at one is signed in at all (server/ha/shared-identity.ts).
  const sharedIdentity = await ha?.shareIdentity([sessions, apiTokens, ...(identity === null ? [] : [identity.pending])])
  if (sharedIdentity) {
    auth.setSharedRefresh(() => sharedIdentity.refresh())
    identity?.setSharedRefresh(() => sharedIdentity.refresh())
  }
  await ha?.shareAudit(audit, (entry) => events.publish('audit', entry))
  sharedAudit = ha?.audit ?? null
  const { engine, splitBrain } = await createEngine({ clusters, events, metrics, log: logger.child({ module: 'engine' }), dataDir: config.dataDir, links, ownership: ha?.ownership, sharedOperations: ha?.operations })
  await ha?.join(engine)
  ha?.relayEvents(events)
  const verifier = await createVerifier({ clusters, engine, links, dataDir: config.dataDir, log: logger.child({ module: 'verification' }), publish: (summary) => events.publish('verification', summary) })
  const drills = await createDrills({ clusters, engine, metrics, dataDir: config.dataDir, log: logger.child({ module: 'drills' }), publish: (drill) => events.publish('drill', drill) })
  const alerts = await startAlerting({ engine, splitBrain, drills, events, dataDir: config.dataDir, url: config.url, log: logger.child({ module: 'alerts' }) })
  const demo = links
    ? await DemoEnvironment.start({
        dataDir: config.dataDir,
        drills,
        verifier,
        url: config.url,
        tokens,
        clusters,
        engine,
        links,
        log: logger.child({ module: 'demo' }),
        publish: (event) => events.publish('demo', event),
      })
    : null

  let closing: Promise<void> | null = null
  const shutdownProgress: ShutdownProgress = { closing: '' }
  const runtime: Runtime = {
    version: packageJson.version,
    config,
    startedAt: Date.now(),
    events,
    audit,
    auth,
    identity,
    clusters,
    engine,
    splitBrain,
    verifier,
    drills,
    metrics,
    alerts,
    demo,
    ha,
    close() {
      closing ??= closeRuntimeParts({ alerts, demo, splitBrain, events, drills, verifier, engine, ha, clusters, audit }, shutdownProgress)
      return closing
    },
  }
  // The HTTP server knows nothing of the engine's files: close them, then let the signal end the process.
  installShutdownHooks(() => runtime.close(), shutdownProgress)
  return runtime
}

/**
 * Closes a runtime's parts in the order that loses nothing: what reads the engine first, then the engine (its
 * files), then the group — leaving it hands this instance's mirrors over at once, not after a session timeout —
 * and last what everything else wrote through (the clusters' connections, the audit log).
 */
export async function closeRuntimeParts(
  parts: Pick<Runtime, 'alerts' | 'demo' | 'splitBrain' | 'events' | 'drills' | 'verifier' | 'engine' | 'ha' | 'clusters' | 'audit'>,
  progress: ShutdownProgress = { closing: '' },
): Promise<void> {
  const steps: Array<[string, () => unknown]> = [
    ['alerts', () => parts.alerts.close()],
    ['demo', () => parts.demo?.close()],
    ['split-brain watch', () => parts.splitBrain.stop()],
    ['event stream', () => parts.events.close()],
    ['drills', () => parts.drills.close()],
    ['verifier', () => parts.verifier.close()],
    ['engine', () => parts.engine.close()],
    ['group membership', () => parts.ha?.close()],
    ['cluster connections', () => parts.clusters.close()],
    ['audit log', () => parts.audit.close()],
  ]
  for (const [name, close] of steps) {
    progress.closing = name
    await close()
  }
  progress.closing = 'done'
}

/** Starts the runtime once per process; later calls return the same instance. */
export function startRuntime(): Promise<Runtime> {
  holder.__mirrorboardRuntime ??= createRuntime()
  return holder.__mirrorboardRuntime
}

export const getRuntime = startRuntime

// THE ENGINE'S WIRING

/** How often the server's engine runs a tick (retries, syncs, one fetch round per mirror). */
const TICK_INTERVAL_MS = 100
/** Kafka's replica.fetch.wait.max.ms default: a caught-up mirror asks its source twice a second, not ten times. */
const FETCH_MAX_WAIT_MS = 500

/**
 * Builds the engine over the registry's clusters and connects it to the rest of the server: every
 * cluster answers mirror lookups from the engine, engine events go to the SSE hub, mirror metrics to
 * the metrics registry; and starts the split-brain guard over it, reading old sources through their
 * ports (embedded or Kafka). Called once, from the composition root.
 */
export async function createEngine(deps: {
  clusters: ClusterRegistry
  events: EventHub
  metrics: MetricsRegistry
  log: Logger
  dataDir: string
  /** The links between clusters, when they can be cut (the demo's fault injection); without, always up. */
  links?: ClusterLinks
  /** Which mirrors this instance runs (server/engine/ownership.ts); without, all of them. */
  ownership?: MirrorOwnership
  /** The operations every instance of the group reads (server/ha/shared-operations.ts); without, this data directory's alone. */
  sharedOperations?: SharedOperations
  /** Fault injection around each STOPPING action (tests that kill an instance mid-failover). */
  onStoppingAction?: EngineOptions['onStoppingAction']
}): Promise<{ engine: MirrorEngine; splitBrain: SplitBrainWatch }> {
  const { clusters, events, metrics, log, links } = deps
  // Clusters that mirror from `source`: their fetchers cross the link a cut at either end breaks.
  const destinationsOf = (source: string) =>
    engine
      .listMirrors()
      .filter((mirror) => mirror.sourceCluster === source)
      .map((mirror) => mirror.destinationCluster)
  const fetchDuration = metrics.histogram('mirrorboard_fetch_duration_seconds', 'Fetch requests to source clusters, including the wait at the source for new records (up to 500 ms).', ['source'], FETCH_BUCKETS)
  const remoteSources = new WeakMap<object, SourceCluster>()
  const remoteSource = (name: string, cluster: SourceCluster): SourceCluster => {
    let remote = remoteSources.get(cluster)
    if (!remote) {
      const reached = links ? links.remoteSource(cluster, () => destinationsOf(name)) : cluster
      const observe = fetchDuration.labels({ source: name })
      remoteSources.set(cluster, (remote = timedSource(reached, (seconds) => observe.observe(seconds))))
    }
    return remote
  }
  const operationStore = await OperationStore.open(path.join(deps.dataDir, 'operations'), {
    onDamagedFile: (info) => log.warn('skipped a damaged operation record', info),
    shared: deps.sharedOperations,
    onSharedWriteFailed: (info) => log.warn('an operation record could not be written to the control cluster; this instance keeps it', info),
  })
  const engine: MirrorEngine = new MirrorEngine({
    lagArchive: new LagArchive(path.join(deps.dataDir, 'lag')),
    operationStore,
    clusters: {
      names: () => clusters.names(),
      get: (name) => {
        try {
          const { source, host } = clusters.ports(name)
          return { source: remoteSource(name, source), host }
        } catch {
          return undefined
        }
      },
      observe: (name) => {
        try {
          return clusters.ports(name).source
        } catch {
          return undefined
        }
      },
    },
    log: (message, fields) => log.info(message, fields),
    fetchMaxWaitMs: FETCH_MAX_WAIT_MS,
    ownership: deps.ownership,
    onStoppingAction: deps.onStoppingAction,
  })
  // Operations change as they run: the hub keeps a copy in the API's shape, never the live object; progress
  // events carry only the partitions that changed (server/http/events-operation-delta.ts).
  const operationPayloads = new OperationEventPayloads()
  engine.subscribe((event) => {
    if (event.type === 'mirror') return
    events.publish(event.type, event.type === 'operation' ? operationPayloads.payload(toOperation(event.operation), event.change) : event)
  })
  metrics.register('engine', mirrorMetricsCollector(engine))
  observeOperationDurations(engine, metrics)
  await engine.start()
  engine.startBackground(TICK_INTERVAL_MS)
  const splitBrain = startSplitBrainWatch(engine, {
    source: (name) => {
      try {
        return clusters.ports(name).source
      } catch {
        // Not there (removed) or not open: the watch shows the old source unreachable.
        return undefined
      }
    },
    log: (message, fields) => log.warn(message, fields),
  })
  metrics.register('split-brain', () => splitBrain.metrics())
  return { engine, splitBrain }
}

/** The built-in alerting over the engine, started: its `alert` events go to the SSE hub. */
export async function startAlerting(deps: {
  engine: MirrorEngine
  splitBrain: SplitBrainWatch
  /** The drills' cadence, for DrillOverdue. */
  drills: Pick<Drills, 'cadence'>
  events: EventHub
  dataDir: string
  url: string
  log: Logger
}): Promise<AlertService> {
  const { engine, drills } = deps
  const alerts = await AlertService.open({
    dataDir: deps.dataDir,
    figures: () => mirrorAlertFigures(engine, deps.splitBrain, (mirror) => drills.cadence(mirror)),
    knownMirror: (name) => engine.listMirrors().some((mirror) => mirror.name === name),
    publish: (alert) => deps.events.publish('alert', alert),
    log: deps.log,
    pageUrl: `${deps.url.replace(/\/+$/, '')}/alerts`,
  })
  alerts.start()
  return alerts
}

/** Seconds: a fetch answers at once with data, or after the 500 ms wait when caught up; a slow source shows above. */
const FETCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.6, 1, 2.5, 5, 10]
/** Seconds: a failover of a few partitions takes well under a second; 10,000 take seconds; a stuck one minutes. */
const OPERATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900]

/**
 * Each operation's duration, once, when it finishes (resumed ones count the time across the restart); its
 * measured RTO (start → last partition STOPPED, the destination writable: lib/failover/recovery-time.ts) when it
 * succeeded; a planned switchover's phases and how long client writes were refused.
 */
function observeOperationDurations(engine: MirrorEngine, metrics: MetricsRegistry): void {
  const durations = metrics.histogram('mirrorboard_operation_duration_seconds', 'Duration of finished operations, by kind, type and outcome.', ['kind', 'type', 'outcome'], OPERATION_BUCKETS)
  const rto = metrics.histogram('mirrorboard_failover_rto_seconds', "Measured RTO of succeeded failovers and switchovers: from the operation's start to its last partition STOPPED (the destination writable), by mirror and type.", ['mirror', 'type'], OPERATION_BUCKETS)
  const phases = metrics.histogram('mirrorboard_switchover_phase_seconds', "A finished planned switchover's phases (fence, drain, stop) and how long client writes were refused (writes_refused: fence → STOPPED or the rollback), by outcome.", ['phase', 'outcome'], OPERATION_BUCKETS)
  const observed = new Set<string>()
  engine.subscribe((event) => {
    if (event.type !== 'operation') return
    const { operation } = event
    if (operation.status === 'running' || operation.finishedAt === null || observed.has(operation.id)) return
    observed.add(operation.id)
    const type = operation.type ?? 'unplanned'
    durations.observe({ kind: operation.kind, type, outcome: operation.status }, (operation.finishedAt - operation.startedAt) / 1000)
    const rtoMs = operationRtoMs(operation)
    if (rtoMs !== null) rto.observe({ mirror: operation.mirror, type }, rtoMs / 1000)
    if (operation.switchover !== undefined) {
      const times = switchoverTimes(operation.switchover)
      for (const [phase, ms] of [['fence', times.fenceMs], ['drain', times.drainMs], ['stop', times.stopMs], ['writes_refused', times.writesRefusedMs]] as const) {
        if (ms !== null) phases.observe({ phase, outcome: operation.status }, ms / 1000)
      }
    }
  })
}
