import 'server-only'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { ManualClock } from './clock'
import type { EmbeddedClusterConfig } from './config'
import { EmbeddedCluster } from './embedded-cluster'

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
 * KIP-1279's worked example on the source (kip-1279-excerpt.txt): 4001 writes A,B; 4002 writes X; 4001
 * commits; 4003 writes Y; a plain write Z. Offsets 0-5 of `orders`, with 4002 and 4003 left open.
 */
export async function writeWorkedExample(cluster: EmbeddedCluster) {
  await cluster.createTopic({ name: 'orders', partitions: 1 })
  const p4001 = await cluster.createTransactionalProducer('app-1')
  const p4002 = await cluster.createTransactionalProducer('app-2')
  const p4003 = await cluster.createTransactionalProducer('app-3')
  await p4001.send('orders', { records: [{ key: 'A', value: '1' }, { key: 'B', value: '2' }] })
  await p4002.send('orders', { records: [{ key: 'X', value: '9' }] })
  await p4001.commit()
  await p4003.send('orders', { records: [{ key: 'Y', value: '5' }] })
  await cluster.produce('orders', { idempotent: false, records: [{ key: 'Z', value: '10' }] })
  return { p4001, p4002, p4003 }
}
