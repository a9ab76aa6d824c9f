import 'server-only'
import { installShutdownHooks, type ShutdownProgress } from '@/server/shutdown'

/**
 * A process with the server's shutdown hooks and a runtime whose closing either finishes or hangs in its engine
 * part (server/shutdown.test.ts). Run with:
 *   node --conditions=react-server --import tsx server/testing/shutdown-child.ts hang|finish <deadlineMs>
 */
const mode = process.argv[2]
const deadlineMs = Number(process.argv[3])
const progress: ShutdownProgress = { closing: '' }
installShutdownHooks(
  async () => {
    progress.closing = 'engine'
    if (mode === 'hang') await new Promise<void>(() => {})
    progress.closing = 'done'
  },
  progress,
  deadlineMs,
)
// The server's listening socket, in effect: something that keeps the process alive until a signal ends it.
setInterval(() => {}, 1_000)
process.stdout.write('ready\n')
