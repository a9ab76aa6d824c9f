import 'server-only'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { DemoStatus } from '@/lib/api/demo'
import type { DemoEvent } from '@/lib/api/events'
import type { ClusterLinks } from '@/server/cluster/links'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { MirrorEngine } from '@/server/engine/engine'
import type { Logger } from '@/server/observability/logger'
import { formatBanner, type DemoTokens } from './banner'
import { FaultInjector } from './faults'
import { ensureLiveTopology, LIVE, LIVE_TOPICS, liveWorkloads } from './live-topology'
import { ScenarioRuns } from './scenario-runs'
import { SCENARIOS } from './scenarios'
import type { WorkloadSpec } from './workloads'
import { Workloads } from './workloads'

export interface DemoDependencies {
  dataDir: string
  /** Where the app is served, for the banner. */
  url: string
  tokens: DemoTokens
  clusters: ClusterRegistry
  engine: MirrorEngine
  links: ClusterLinks
  log: Logger
  /** Receives a `demo` event after every change of a run, fault or workload (the SSE hub in the server). */
  publish?: (event: DemoEvent) => void
  /** Where the banner goes (stdout in the server). */
  print?: (text: string) => void
  /** @internal visible for testing: other workloads than the live ones. */
  workloads?: (clusters: ClusterRegistry) => WorkloadSpec[]
}

/**
 * The demo environment (DESIGN.md §8), built by the composition root only with MIRRORBOARD_DEMO=1: the live
 * clusters and their workloads, fault injection and the scenario runs. A failure to set up the live clusters
 * is reported by `status()` and the log; faults and scenarios still answer.
 */
export class DemoEnvironment {
  readonly workloads: Workloads
  readonly faults: FaultInjector
  readonly runs: ScenarioRuns
  private state: DemoStatus['status'] = 'starting'
  private error: string | null = null

  private constructor(private readonly deps: DemoDependencies) {
    const publish = deps.publish ?? (() => {})
    this.workloads = new Workloads(deps.dataDir, deps.log.child({ module: 'demo-workloads' }), (workload) => publish({ change: 'workloadChanged', workload }))
    this.faults = new FaultInjector({
      dataDir: deps.dataDir,
      cluster: (name) => deps.clusters.embedded(name),
      links: deps.links,
      log: deps.log,
      onChange: (fault) => publish({ change: 'faultChanged', fault }),
    })
    this.runs = new ScenarioRuns(
      { clusters: deps.clusters, engine: deps.engine, links: deps.links, dataDir: deps.dataDir, log: deps.log, onChange: (run) => publish({ change: 'runUpdated', run }) },
      SCENARIOS,
    )
  }

  static async start(deps: DemoDependencies): Promise<DemoEnvironment> {
    const demo = new DemoEnvironment(deps)
    await mkdir(path.join(deps.dataDir, 'demo'), { recursive: true })
    await demo.faults.load()
    await demo.runs.load()
    try {
      const created = await ensureLiveTopology(deps.clusters, deps.engine)
      deps.log.info(created.length > 0 ? 'demo set up' : 'demo resumed', { created })
      await demo.workloads.start((deps.workloads ?? liveWorkloads)(deps.clusters))
      demo.state = 'ready'
    } catch (error) {
      demo.state = 'failed'
      demo.error = error instanceof Error ? error.message : String(error)
      deps.log.error('the demo clusters could not be set up', { error })
    }
    ;(deps.print ?? ((text) => process.stdout.write(text)))(formatBanner({ url: deps.url, tokens: deps.tokens, status: demo.status() }))
    return demo
  }

  status(): DemoStatus {
    return {
      status: this.state,
      error: this.error,
      sourceCluster: LIVE.sourceCluster,
      destinationCluster: LIVE.destinationCluster,
      mirror: LIVE.mirror,
      topics: [...LIVE_TOPICS],
    }
  }

  /** The operator token, for the one-click sign-in on loopback (never sent to a client). */
  get operatorToken(): string {
    return this.deps.tokens.operator
  }

  async close(): Promise<void> {
    await this.runs.close()
    await this.workloads.close()
  }
}
