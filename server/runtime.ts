import 'server-only'
import { mkdir } from 'node:fs/promises'
import packageJson from '@/package.json'
import { readRuntimeConfig, type RuntimeConfig } from './config'

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
  close(): Promise<void>
}

const holder = globalThis as typeof globalThis & { __mirrorboardRuntime?: Promise<Runtime> }

async function createRuntime(): Promise<Runtime> {
  const config = readRuntimeConfig()
  await mkdir(config.dataDir, { recursive: true })
  const runtime: Runtime = {
    version: packageJson.version,
    config,
    startedAt: Date.now(),
    async close() {},
  }
  installShutdownHooks(runtime)
  return runtime
}

function installShutdownHooks(runtime: Runtime): void {
  // next start finishes in-flight requests on SIGTERM but knows nothing of the engine's files.
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
