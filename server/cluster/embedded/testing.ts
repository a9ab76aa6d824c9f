import 'server-only'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { WORKED_EXAMPLE, type WorkedExampleStep } from '@/lib/mirror/worked-example'
import { ManualClock } from './clock'
import type { EmbeddedClusterConfig } from './config'
import { EmbeddedCluster } from './embedded-cluster'
import type { TransactionalProducer } from './producers'

/** @internal test helper: a cluster in a fresh temp dir with a manual clock; `cleanup` closes and removes it. */
export interface TestCluster {
  cluster: EmbeddedCluster
  clock: ManualClock
  dir: string
  reopen(overrides?: Partial<EmbeddedClusterConfig>): Promise<EmbeddedCluster>
  cleanup(): Promise<void>
}

export async function openTestCluster(options: { brokers?: number; config?: Partial<EmbeddedClusterConfig>; name?: string } = {}): Promise<TestCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'embedded-cluster-'))
  const clock = new ManualClock()
  const name = options.name ?? 'test'
  const config = { replicaLagTimeMaxMs: 10_000, ...options.config }
  const handle: TestCluster = {
    cluster: await EmbeddedCluster.open(dir, { name, brokers: options.brokers ?? 3, clock, config }),
    clock,
    dir,
    async reopen(overrides) {
      await handle.cluster.close()
      handle.cluster = await EmbeddedCluster.open(dir, { name, brokers: options.brokers ?? 3, clock, config: { ...config, ...overrides } })
      return handle.cluster
    },
    async cleanup() {
      await handle.cluster.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return handle
}

/** @internal test helper: asserts that `action` fails with a ClusterError/StorageError of this code. */
export async function expectErrorCode(action: Promise<unknown> | (() => unknown), code: string): Promise<void> {
  let caught: unknown
  try {
    await (typeof action === 'function' ? action() : action)
  } catch (error) {
    caught = error
  }
  if (caught === undefined) throw new Error(`expected an error with code ${code}, but the call succeeded`)
  const actual = (caught as { code?: unknown }).code
  if (actual !== code) throw new Error(`expected error code ${code}, got ${String(actual)}: ${(caught as Error).message}`, { cause: caught })
}

/**
 * @internal KIP-1279's worked example on the source (lib/mirror/worked-example.ts): 4001 writes A,B; 4002
 * writes X; 4001 commits; 4003 writes Y; a plain write Z. Offsets 0-5 of `orders`, with 4002 and 4003 left
 * open. The cluster needs `firstProducerId: WORKED_EXAMPLE.sourceFirstProducerId` for the ids to match.
 */
export async function writeWorkedExample(cluster: EmbeddedCluster) {
  const { topic, transactionalIds, stepsBeforeMirroring, stepsAfterPause } = WORKED_EXAMPLE
  await cluster.createTopic({ name: topic, partitions: 1 })
  const producers: TransactionalProducer[] = []
  for (const id of transactionalIds) producers.push(await cluster.createTransactionalProducer(id))
  for (const step of [...stepsBeforeMirroring, ...stepsAfterPause]) await applyWorkedExampleStep(cluster, producers, step)
  const [p4001, p4002, p4003] = producers as [TransactionalProducer, TransactionalProducer, TransactionalProducer]
  return { p4001, p4002, p4003 }
}

/** @internal One step of the worked example on partition 0 of its topic. */
export async function applyWorkedExampleStep(cluster: EmbeddedCluster, producers: readonly TransactionalProducer[], step: WorkedExampleStep): Promise<void> {
  const { topic } = WORKED_EXAMPLE
  if (step.kind === 'send') await producers[step.producer]!.send(topic, { partition: 0, records: step.records.map((r) => ({ ...r })) })
  else if (step.kind === 'commit') await producers[step.producer]!.commit()
  else await cluster.produce(topic, { partition: 0, idempotent: false, records: step.records.map((r) => ({ ...r })) })
}
