import 'server-only'
import { FakeMirrorHost } from '@/server/cluster/fakes/fake-mirror-host'
import { FakeSourceCluster } from '@/server/cluster/fakes/fake-source-cluster'
import { FakeTopics } from '@/server/cluster/fakes/fake-topics'
import { MirrorEngine, type EngineOptions } from '../engine'

/** @internal An engine over port fakes (no storage), with a manual clock: tests and the flap bench step it. */
export interface FakeEngine {
  engine: MirrorEngine
  source(name: string): FakeSourceCluster
  host(name: string): FakeMirrorHost
  /** Milliseconds since the start; moved only by `advance`. */
  now(): number
  advance(ms: number): void
  /** One tick after moving the clock, then whatever work the tick queued. */
  step(ms?: number): Promise<void>
}

export async function createFakeEngine(clusterNames: string[], options: Partial<EngineOptions> = {}): Promise<FakeEngine> {
  let now = 1_764_400_000_000
  const clock = () => now
  const sources = new Map<string, FakeSourceCluster>()
  const hosts = new Map<string, FakeMirrorHost>()
  for (const name of clusterNames) {
    // One cluster, two faces: what it serves as a source and what it hosts share topics and logs.
    const state = new FakeTopics(name)
    sources.set(name, new FakeSourceCluster(name, { state, now: clock }))
    hosts.set(name, new FakeMirrorHost(name, { state, now: clock }))
  }
  const engine = new MirrorEngine({
    clusters: {
      names: () => clusterNames,
      get: (name) => (sources.has(name) ? { source: sources.get(name)!, host: hosts.get(name)! } : undefined),
    },
    now: clock,
    random: () => 0.5,
    ...options,
  })
  await engine.start()
  await engine.settle()
  const fake: FakeEngine = {
    engine,
    source: (name) => sources.get(name)!,
    host: (name) => hosts.get(name)!,
    now: clock,
    advance(ms) {
      now += ms
    },
    async step(ms = 100) {
      now += ms
      await engine.tick()
      await engine.settle()
    },
  }
  return fake
}
