import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const child = path.resolve(import.meta.dirname, 'testing', 'shutdown-child.ts')

/** Starts the child, sends it SIGTERM once it is ready, and gives back how it ended and what it wrote. */
function terminate(mode: 'hang' | 'finish', deadlineMs: number): Promise<{ signal: NodeJS.Signals | null; code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', child, mode, String(deadlineMs)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const take = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ready\n') && !output.includes('[sent]')) {
        output += '[sent]'
        process_.kill('SIGTERM')
      }
    }
    process_.stdout.on('data', take)
    process_.stderr.on('data', take)
    process_.on('error', reject)
    process_.on('exit', (code, signal) => resolve({ signal, code, output }))
  })
}

describe('shutdown hooks', () => {
  it('end the process by its signal once the runtime has closed, with nothing logged as late', async () => {
    const ended = await terminate('finish', 60_000)
    expect(ended.signal).toBe('SIGTERM')
    expect(ended.output).not.toContain('did not finish')
  })

  it('end the process past the deadline when a part never finishes closing, naming that part', async () => {
    // Without the deadline this child would run for ever: the test's own timeout fails it.
    const ended = await terminate('hang', 500)
    expect(ended.signal).toBe('SIGTERM')
    expect(ended.output).toContain('shutdown did not finish in time')
    expect(ended.output).toContain('engine')
  })
})
