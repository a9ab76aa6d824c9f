import 'server-only'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { ManualClock } from '@/server/cluster/embedded/clock'
import type { SourceCluster } from '@/server/cluster/ports'
import type { EmbeddedClusterConfig } from '@/server/cluster/embedded/config'
import { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import { MirrorEngine, type EngineClusterAccess } from '../engine'
import { LagArchive } from '../lag/lag-archive'
import type { EngineEvent } from '../types'
import { OperationStore } from '../operations/operation-store'

/** @internal test harness: embedded clusters in temp dirs, one manual clock, and an engine over them. */
export interface EngineHarness {
  root: string
  clock: ManualClock
  clusters: Map<string, EmbeddedCluster>
  engine: MirrorEngine
  cluster(name: string): EmbeddedCluster
  /** Ticks the engine (and the clusters) `times` times, moving the clock by `stepMs` before each. */
  run(times?: number, stepMs?: number): Promise<void>
  /** Closes everything and opens it again from disk, as a restarted process would. */
  restart(): Promise<void>
  /** Closes everything and keeps the data root (another process opens it next). */
  close(): Promise<void>
  cleanup(): Promise<void>
}

export interface HarnessOptions {
  clusters: Record<string, { brokers?: number; config?: Partial<EmbeddedClusterConfig> }>
  random?: () => number
  /** Reuse an existing data root (a restart after a crash); default: a fresh temp dir. */
  root?: string
  onStoppingAction?: import('../engine').EngineOptions['onStoppingAction']
  /** Persist downsampled lag history under `<root>/lag`. */
  archiveLag?: boolean
  fetchMaxWaitMs?: number
  /** Called between the engine's start and the first settle (what a restarted server shows at once). */
  onStarted?: (engine: MirrorEngine) => void
  /** Every engine event, from before the engine starts (a restart's `resumed` operations included). */
  onEvent?: (event: EngineEvent) => void
  /** The engine's log lines (none are written anywhere by default). */
  log?: import('../engine').EngineOptions['log']
  /** The cluster as the engine's fetchers reach it (across a link a test can cut: server/cluster/links.ts); default: itself. */
  sourceAs?: (cluster: EmbeddedCluster) => SourceCluster
}

export async function createEngineHarness(options: HarnessOptions): Promise<EngineHarness> {
  const root = options.root ?? (await mkdtemp(path.join(os.tmpdir(), 'mirror-engine-')))
  const clock = new ManualClock()
  const clusters = new Map<string, EmbeddedCluster>()
  const open = async () => {
    for (const [name, spec] of Object.entries(options.clusters)) {
      clusters.set(name, await EmbeddedCluster.open(path.join(root, name), { name, brokers: spec.brokers ?? 3, clock, config: spec.config }))
    }
    const access: EngineClusterAccess = {
      names: () => [...clusters.keys()],
      get: (name) => {
        const cluster = clusters.get(name)
        if (!cluster) return undefined
        return { source: options.sourceAs ? options.sourceAs(cluster) : cluster, host: cluster }
      },
    }
    const engine = new MirrorEngine({
      clusters: access,
      operationStore: await OperationStore.open(path.join(root, 'operations')),
      now: () => clock.now(),
      random: options.random ?? (() => 0.5),
      onStoppingAction: options.onStoppingAction,
      fetchMaxWaitMs: options.fetchMaxWaitMs,
      lagArchive: options.archiveLag ? new LagArchive(path.join(root, 'lag')) : undefined,
      log: options.log,
    })
    if (options.onEvent) engine.subscribe(options.onEvent)
    await engine.start()
    options.onStarted?.(engine)
    await engine.settle()
    return engine
  }
  const harness: EngineHarness = {
    root,
    clock,
    clusters,
    engine: await open(),
    cluster(name) {
      const cluster = clusters.get(name)
      if (!cluster) throw new Error(`no cluster ${name}`)
      return cluster
    },
    async run(times = 1, stepMs = 100) {
      for (let i = 0; i < times; i++) {
        clock.advance(stepMs)
        for (const cluster of clusters.values()) await cluster.tick()
        await harness.engine.tick()
        await harness.engine.settle()
      }
    },
    async restart() {
      await harness.engine.close()
      for (const cluster of clusters.values()) await cluster.close()
      clusters.clear()
      harness.engine = await open()
    },
    async close() {
      await harness.engine.close()
      for (const cluster of clusters.values()) await cluster.close()
      clusters.clear()
    },
    async cleanup() {
      await harness.engine.close()
      for (const cluster of clusters.values()) await cluster.close()
      await rm(root, { recursive: true, force: true })
    },
  }
  return harness
}
