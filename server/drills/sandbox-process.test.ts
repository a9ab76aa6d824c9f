import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { SANDBOX_FAILOVER_NICE, SANDBOX_NICE, SandboxProcess } from './sandbox-process'

/**
 * The sandbox's process runs the RTO's part of a drill (open, STOPPING) at a moderate priority and its checks at
 * the lowest: a process at nice 19 throughout was starved above load ~16 on two cores and the RTO grew.
 */
describe("the drill's sandbox process", () => {
  it('starts at the failover priority and drops to the lowest for the checks', async () => {
    const logged: string[] = []
    const sandbox = SandboxProcess.spawn((message) => logged.push(message))
    try {
      sandbox.load()
      await sandbox.whenReady()
      // A process can only lower its priority: a test runner already past nice 10 keeps its own.
      const own = os.getPriority()
      expect(SANDBOX_FAILOVER_NICE).toBeLessThan(SANDBOX_NICE)
      expect(os.getPriority(sandbox.pid!)).toBe(Math.max(own, SANDBOX_FAILOVER_NICE))
      sandbox.lowerForChecks()
      expect(os.getPriority(sandbox.pid!)).toBe(SANDBOX_NICE)
      expect(logged).toEqual([])
    } finally {
      await sandbox.kill()
    }
  }, 60_000)
})
