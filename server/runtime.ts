import 'server-only'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import packageJson from '@/package.json'
import { AuditLog } from './audit/audit-log'
import { ClusterLinks } from './cluster/links'
import { ClusterRegistry } from './cluster/registry'
import { readRuntimeConfig, type RuntimeConfig } from './config'
import { DemoEnvironment } from './demo/demo-environment'
import { Auth, SessionStore, loadTokens } from './http/auth'
import { EventHub } from './http/events'
import { logger } from './http/logger'
import { MetricsRegistry } from './http/metrics'
import type { MirrorEngine } from './engine/engine'
import { createEngine } from './engine/runtime'

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
  readonly clusters: ClusterRegistry
  /** The KIP-1279 mirroring engine over the registry's clusters. */
  readonly engine: MirrorEngine
  /** Collectors behind GET /api/metrics; the engine registers its mirror families here. */
  readonly metrics: MetricsRegistry
  /** The demo environment (workloads, faults, scenarios); null unless MIRRORBOARD_DEMO=1. */
  readonly demo: DemoEnvironment | null
  close(): Promise<void>
}

const holder = globalThis as typeof globalThis & { __mirrorboardRuntime?: Promise<Runtime> }

async function createRuntime(): Promise<Runtime> {
  const config = readRuntimeConfig()
  await mkdir(config.dataDir, { recursive: true })
  const log = logger.child({ module: 'runtime' })
  const events = new EventHub()
  const audit = await AuditLog.open(path.join(config.dataDir, 'audit', 'audit.jsonl'), {
    onAppend: (entry) => events.publish('audit', entry),
    onDamagedLine: (info) => log.warn('skipped a damaged audit log line', info),
  })
  const tokens = await loadTokens(config.dataDir, config.tokens, log)
  const auth = new Auth(tokens, await SessionStore.open(config.dataDir, Date.now, log))
  const clusters = await ClusterRegistry.open({
    dataDir: config.dataDir,
    log: logger.child({ module: 'clusters' }),
    publish: (event) => events.publish('cluster', event),
  })
  const metrics = new MetricsRegistry((collector, error) => log.error('a metrics collector failed', { collector, error }))
  metrics.register('clusters', () => clusters.collectMetrics())
  metrics.register('http', () => [
    { name: 'mirrorboard_event_subscribers', help: 'Open GET /api/v1/events streams.', type: 'gauge', samples: [{ value: events.subscriberCount }] },
    { name: 'mirrorboard_audit_entries_total', help: 'Entries in the audit log.', type: 'counter', samples: [{ value: audit.lastEntryId }] },
  ])
  // Links between clusters can be cut only in the demo (fault injection); otherwise the engine reaches clusters directly.
  const links = config.demo ? new ClusterLinks() : undefined
  const engine = await createEngine({ clusters, events, metrics, log: logger.child({ module: 'engine' }), dataDir: config.dataDir, links })
  const demo = links
    ? await DemoEnvironment.start({
        dataDir: config.dataDir,
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
  const runtime: Runtime = {
    version: packageJson.version,
    config,
    startedAt: Date.now(),
    events,
    audit,
    auth,
    clusters,
    engine,
    metrics,
    demo,
    close() {
      closing ??= (async () => {
        await demo?.close()
        events.close()
        await engine.close()
        await clusters.close()
        await audit.close()
      })()
      return closing
    },
  }
  installShutdownHooks(runtime)
  return runtime
}

function installShutdownHooks(runtime: Runtime): void {
  // The HTTP server knows nothing of the engine's files: close them, then let the signal end the process.
  let closing = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    runtime.close().finally(() => process.kill(process.pid, signal))
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
}

/** Starts the runtime once per process; later calls return the same instance. */
export function startRuntime(): Promise<Runtime> {
  holder.__mirrorboardRuntime ??= createRuntime()
  return holder.__mirrorboardRuntime
}

export const getRuntime = startRuntime
