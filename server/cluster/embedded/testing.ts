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
