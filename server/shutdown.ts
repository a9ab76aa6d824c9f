import 'server-only'
import { logger } from './observability/logger'

/**
 * What a signal does to the server: close the runtime's parts in order (nothing acknowledged is lost: the engine
 * syncs its files), then let the signal end the process. A part that never finishes closing (a group leave against
 * an unreachable control cluster, a cluster connection that never answers) must not keep the process alive: past
 * the deadline it is logged by name and the process ends anyway, before an orchestrator's own
 * grace period (Kubernetes: 30 s) would SIGKILL it without a word. Ending there loses nothing either: every write
 * the engine acknowledged is already on disk (the crash tests SIGKILL it at any point). A second signal ends the
 * process at once (the handlers are `once`: the signal's default action is back).
 */
export const SHUTDOWN_DEADLINE_MS = 25_000

/** Which part is closing now, for the deadline's log line. */
export interface ShutdownProgress {
  closing: string
}

export function installShutdownHooks(close: () => Promise<void>, progress: ShutdownProgress, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let closing = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    const deadline = setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting without waiting for the rest', { module: 'runtime', signal, closing: progress.closing, deadlineMs })
      process.kill(process.pid, signal)
    }, deadlineMs)
    deadline.unref()
    close()
      .catch((error: unknown) => logger.error('shutdown failed', { module: 'runtime', error: error instanceof Error ? error.message : String(error), closing: progress.closing }))
      .finally(() => {
        clearTimeout(deadline)
        process.kill(process.pid, signal)
      })
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
}
