/**
 * A planned switchover whose server is SIGKILLed in each phase (issue #34): a child process (so nothing is
 * closed or flushed beyond what each step made durable) starts a switchover of a throttled, lagging mirror and is
 * killed once the operation reached the phase; the same server started again on the data dir resumes the
 * operation, which completes with nothing lost: 0 records lost measured at STOPPED, the destination holding every
 * source offset, the restart counted.
 */
import 'server-only'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const childScript = path.resolve(import.meta.dirname, '../testing/switchover-child.ts')
let dataDir: string | undefined
let child: ChildProcess | undefined

function run(args: string[], until: (output: string) => boolean): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const started = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', childScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk.toString()
      if (until(output)) resolve({ child: started, output: () => output })
    }
    started.stdout!.on('data', collect)
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    started.on('error', reject)
    started.on('exit', (code, signal) => reject(new Error(`the switchover child exited (${signal ?? code}) too early:\n${output.slice(-4000)}`)))
  })
}

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe('a planned switchover whose server is SIGKILLed', () => {
  for (const phase of ['fenceSource', 'drain', 'stopping'] as const) {
    it(`in ${phase} resumes after the restart and completes with nothing lost`, { timeout: 120_000 }, async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), `mirrorboard-switchover-kill-${phase}-`))
      const started = await run([dataDir, 'start', phase], (output) => output.includes(`phase ${phase}\n`))
      const killed = new Promise((resolve) => started.child.once('exit', resolve))
      started.child.kill('SIGKILL')
      await killed

      const resumed = await run([dataDir, 'resume'], (output) => /^result \{.*\}$/m.test(output))
      const line = resumed.output().split('\n').find((text) => text.startsWith('result '))!
      const result = JSON.parse(line.slice('result '.length)) as { status: string; phase: string; recordsLost: number | null; resumedAt: number; source: number[]; destination: number[] }
      expect(result).toMatchObject({ status: 'succeeded', phase: 'done', recordsLost: 0, resumedAt: 1 })
      // Every source offset is on the destination (which adds its own markers after them at STOPPED).
      expect(result.source.reduce((sum, end) => sum + end, 0)).toBe(300)
      result.source.forEach((end, partition) => expect(result.destination[partition]).toBeGreaterThanOrEqual(end))
    })
  }
})
