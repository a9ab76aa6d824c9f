import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { expect, it } from 'vitest'

const child = path.join(__dirname, 'testing', 'few-files-child.ts')
const PARTITIONS = 300
const OPEN_FILES = 256

it(`mirrors ${PARTITIONS} partitions (${2 * PARTITIONS} logs) in a process that may open ${OPEN_FILES} files`, { timeout: 120_000 }, async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'few-files-'))
  try {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const command = `ulimit -n ${OPEN_FILES} && exec "${process.execPath}" --conditions=react-server --import tsx "${child}" "${root}" ${PARTITIONS}`
      const process_ = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      process_.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      process_.on('error', reject)
      process_.on('exit', (code) => resolve({ code, stdout, stderr }))
    })
    expect(result.stderr).not.toContain('EMFILE')
    expect(result.code, result.stderr).toBe(0)
    const { ends, states } = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { ends: number[]; states: string[] }
    expect(states).toEqual(['MIRRORING'])
    expect(ends).toEqual(Array.from({ length: PARTITIONS }, (_, partition) => (partition % 7 === 0 ? 3 : 2)))
  } finally {
    await rm(root, { recursive: true, force: true })
  }
})
