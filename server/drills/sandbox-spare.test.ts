import os from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { SANDBOX_FAILOVER_NICE } from './sandbox-process'
import { SandboxSpare } from './sandbox-spare'
import { alive } from '@/server/drills/testing/sandbox-processes'

/**
 * A drill's sandbox process is forked before the drill, while none runs: the fork holds the forking thread until
 * the child has exec'd (49–92 ms blocked at load, server/drills/README.md), and no turn of a drill should.
 */
const spares: SandboxSpare[] = []
const logged: string[] = []
function spareOf(): SandboxSpare {
  const spare = new SandboxSpare((message) => logged.push(message), () => true, 0)
  spares.push(spare)
  return spare
}

afterEach(async () => {
  await Promise.all(spares.splice(0).map((spare) => spare.close()))
  logged.length = 0
})

describe("a drill's spare sandbox process", () => {
  it('is forked ahead, taken by the next drill, loaded then, at the failover priority', async () => {
    const spare = spareOf()
    spare.prepare()
    const waiting = await spare.forked()
    expect(spare.pid).toBe(waiting.pid)
    expect(waiting.alive).toBe(true)

    const taken = spare.take(() => {})
    try {
      expect(taken).toMatchObject({ spare: true })
      expect(taken.process.pid).toBe(waiting.pid)
      // Taken: no spare left until the next is prepared (after the drill).
      expect(spare.pid).toBeUndefined()
      await taken.process.whenReady()
      expect(os.getPriority(taken.process.pid!)).toBe(Math.max(os.getPriority(), SANDBOX_FAILOVER_NICE))
    } finally {
      await taken.process.kill()
    }
    expect(alive(waiting.pid!)).toBe(false)
  }, 60_000)

  it('forks the drill its own when none waits', async () => {
    const spare = spareOf()
    const taken = spare.take(() => {})
    try {
      expect(taken.spare).toBe(false)
      await taken.process.whenReady()
      expect(taken.process.alive).toBe(true)
    } finally {
      await taken.process.kill()
    }
  }, 60_000)

  it('replaces a spare that died and never hands it out', async () => {
    const spare = spareOf()
    spare.prepare()
    const dead = await spare.forked()
    process.kill(dead.pid!, 'SIGKILL')
    await dead.whenExited()
    const replacement = await spare.forked()
    expect(replacement.pid).not.toBe(dead.pid)
    expect(logged).toContain('drill spare sandbox process ended; another will be forked')

    // Dead before it was taken, its exit already reported: not handed out; the drill forks its own.
    process.kill(replacement.pid!, 'SIGKILL')
    await replacement.whenExited()
    expect(replacement.alive).toBe(false)
    const taken = spare.take(() => {})
    try {
      expect(taken.process.pid).not.toBe(replacement.pid)
      expect(taken.process.pid).not.toBe(dead.pid)
      await taken.process.whenReady()
      expect(taken.process.alive).toBe(true)
    } finally {
      await taken.process.kill()
    }
  }, 60_000)

  it('ends the waiting spare when closed', async () => {
    const spare = spareOf()
    spare.prepare()
    const waiting = await spare.forked()
    await spare.close()
    expect(alive(waiting.pid!)).toBe(false)
    expect(spare.pid).toBeUndefined()
  }, 60_000)
})
