import 'server-only'
import type { FromChild, ToChild } from './sandbox-protocol'

/**
 * The entry of a drill's sandbox process (sandbox-process.ts): forked as a spare while no drill runs, it waits
 * with nothing but node loaded — the sandbox's modules (sandbox-work.ts: the storage, the engine, the checks;
 * ~21 MB more of private memory, 0.3–0.6 s to load built) load when a drill takes it (`load`, answered `ready`),
 * during the drill's copy as before. The parent gone (killed, crashed) → this process ends at once, spare or not:
 * the next start removes any sandbox (drills.ts), and production was never this process's to write.
 */

let work: Promise<typeof import('./sandbox-work')> | null = null

function send(message: FromChild): void {
  process.send?.(message)
}

process.on('disconnect', () => process.exit(1))
// The parent may be gone before this module finished loading (seconds at nice 19 on a busy machine): its
// disconnect was then emitted before the listener above existed, and this process would outlive it.
if (!process.connected) process.exit(1)
process.on('message', (message: ToChild) => {
  // Whatever comes first loads the work (a drill sends `load` as it takes the process); messages are then handled
  // in their order of arrival (callbacks on one promise run in the order they were added).
  work ??= import('./sandbox-work')
  work
    .then((loaded) => (message.type === 'load' ? ({ type: 'ready' } satisfies FromChild) : loaded.handle(message)))
    .then(
      (answer) => {
        if (answer !== null) send(answer)
      },
      (error: unknown) => send({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
    )
})
