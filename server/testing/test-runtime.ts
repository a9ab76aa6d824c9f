import 'server-only'
import path from 'node:path'
import { DEFAULT_AUDIT_RETENTION } from '@/server/audit/audit-files'
import { AuditLog } from '@/server/audit/audit-log'
import { ClusterLinks } from '@/server/cluster/links'
import { ClusterRegistry } from '@/server/cluster/registry'
import { closeRuntimeParts, createEngine, startAlerting } from '@/server/runtime'
import { Auth, SessionStore } from '@/server/http/auth'
import { ApiTokenStore } from '@/server/http/api-token-store'
import { EventHub } from '@/server/http/events'
import { logger } from '@/server/observability/logger'
import { MetricsRegistry } from '@/server/observability/metrics'
import type { Runtime } from '@/server/runtime'
import { DemoEnvironment, type DemoDependencies } from '@/server/demo/demo-environment'
import { createVerifier } from '@/server/verification/verifier-wiring'
import { createDrills } from '@/server/drills/drill-wiring'
import type { DrillsOptions } from '@/server/drills/drills'
import { HaRuntime } from '@/server/ha/ha-runtime'
import type { HaConfig } from '@/server/ha/ha-config'

export const TEST_TOKENS = { operator: 'demo-test-operator', viewer: 'demo-test-viewer' }

const holder = globalThis as typeof globalThis & { __mirrorboardRuntime?: Promise<Runtime> }

/**
 * @internal A runtime as server/runtime.ts builds it (real registry, engine, auth, audit) over `dataDir`, with
 * or without the demo, installed where route handlers find it. `close()` uninstalls it.
 */
export async function openTestRuntime(
  dataDir: string,
  options: {
    demo: boolean
    print?: (text: string) => void
    workloads?: DemoDependencies['workloads']
    drills?: DrillsOptions
    ha?: HaConfig
    beforeEngine?: (clusters: ClusterRegistry) => Promise<void>
    /** Fault injection around each STOPPING action (an instance held mid-failover, then killed). */
    onStoppingAction?: Parameters<typeof createEngine>[0]['onStoppingAction']
  },
): Promise<Runtime> {
  const log = logger.child({ module: 'demo-test' })
  const events = new EventHub()
  let sharedAudit: { send(): void } | null = null
  const audit = await AuditLog.open(path.join(dataDir, 'audit', 'audit.jsonl'), { onAppend: () => sharedAudit?.send() })
  const clusters = await ClusterRegistry.open({ dataDir, log, fencedWrites: !!options.ha })
  const metrics = new MetricsRegistry()
  const links = options.demo ? new ClusterLinks() : undefined
  await options.beforeEngine?.(clusters)
  const ha = options.ha ? new HaRuntime(options.ha, { clusters, version: '0.0.0-test', log: log.child({ module: 'ha' }) }) : null
  await ha?.prepare()
  const sessions = await SessionStore.open(dataDir)
  const apiTokens = await ApiTokenStore.open(dataDir)
  const auth = new Auth(TEST_TOKENS, sessions, { apiTokens })
  // As server/runtime.ts: whoever signed in at one instance is signed in at all.
  const sharedIdentity = await ha?.shareIdentity([sessions, apiTokens])
  if (sharedIdentity) auth.setSharedRefresh(() => sharedIdentity.refresh())
  await ha?.shareAudit(audit, (entry) => events.publish('audit', entry))
  sharedAudit = ha?.audit ?? null
  const { engine, splitBrain } = await createEngine({ clusters, events, metrics, log, dataDir, links, ownership: ha?.ownership, sharedOperations: ha?.operations, onStoppingAction: options.onStoppingAction })
  await ha?.join(engine)
  ha?.relayEvents(events)
  const verifier = await createVerifier({ clusters, engine, links, dataDir, log, publish: (summary) => events.publish('verification', summary) })
  // No spare sandbox process unless a test asks (drills.test.ts): ~40 suites open runtimes, few drill.
  const drills = await createDrills({ clusters, engine, metrics, dataDir, log, publish: (drill) => events.publish('drill', drill), options: { spareSandbox: false, ...options.drills } })
  const alerts = await startAlerting({ engine, splitBrain, drills, events, dataDir, url: 'http://127.0.0.1:3000', log })
  const demo = links
    ? await DemoEnvironment.start({
        dataDir,
        drills,
        verifier,
        url: 'http://127.0.0.1:3000',
        tokens: TEST_TOKENS,
        clusters,
        engine,
        links,
        log,
        publish: (event) => events.publish('demo', event),
        print: options.print ?? (() => {}),
        workloads: options.workloads,
      })
    : null
  const runtime: Runtime = {
    version: '0.0.0-test',
    config: { dataDir, demo: options.demo, url: 'http://127.0.0.1:3000', metricsPublic: false, metricsClusterPartitions: true, checkResponses: true, tokens: TEST_TOKENS, auditRetention: DEFAULT_AUDIT_RETENTION, kafkaAllowedHosts: null, oidc: null, rolesFile: undefined, tokenSignIn: true, sessionIdleMs: 3_600_000, ha: options.ha ?? null },
    startedAt: Date.now(),
    events,
    audit,
    identity: null,
    auth,
    clusters,
    engine,
    splitBrain,
    verifier,
    drills,
    metrics,
    alerts,
    demo,
    ha,
    close: async () => {
      if (holder.__mirrorboardRuntime && (await holder.__mirrorboardRuntime) === runtime) delete holder.__mirrorboardRuntime
      await closeRuntimeParts({ alerts, demo, splitBrain, events, drills, verifier, engine, ha, clusters, audit })
    },
  }
  holder.__mirrorboardRuntime = Promise.resolve(runtime)
  return runtime
}

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>

/** @internal Calls a route handler as Next would, authenticated as operator unless `headers` say otherwise. */
export async function callRoute(
  handler: Handler,
  options: { method?: string; path: string; params?: Record<string, string>; body?: unknown; headers?: Record<string, string> },
): Promise<{ status: number; body: unknown; headers: Headers }> {
  // A header given as '' is left out (authorization: '' calls without credentials).
  const headers = Object.fromEntries(Object.entries({ authorization: `Bearer ${TEST_TOKENS.operator}`, ...options.headers }).filter(([, value]) => value !== ''))
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const request = new Request(`http://127.0.0.1:3000${options.path}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) })
  const text = await response.text()
  // A document (a Markdown report) comes back as its text; every API answer else is JSON.
  const json = (response.headers.get('content-type') ?? 'application/json').startsWith('application/json')
  return { status: response.status, body: text === '' ? null : json ? (JSON.parse(text) as unknown) : text, headers: response.headers }
}
