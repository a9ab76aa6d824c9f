import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEngineHarness } from './testing/harness'
import { WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC } from './testing/worked-example'

const child = path.join(__dirname, 'testing', 'stopping-crash-child.ts')
const STEPS = ['removeFetcher', 'persistPosition', 'bumpEpoch', 'abortTransactions', 'pidReset'] as const
const PHASES = ['beforeAction', 'afterAction'] as const

function runUntilKilled(root: string, step: string, phase: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', child, root, step, phase], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    process_.on('error', reject)
    process_.on('exit', (code, signal) => resolve({ code, signal, stderr }))
  })
}

describe('a crash inside each STOPPING step (KIP-1279.md §11 #24)', () => {
  for (const step of STEPS) {
    for (const phase of PHASES) {
      it(`resumes after a SIGKILL ${phase === 'beforeAction' ? 'before' : 'after'} ${step} with exactly one ABORT per open transaction and one reset`, async () => {
        const root = await mkdtemp(path.join(os.tmpdir(), 'stopping-crash-'))
        try {
          const { signal, stderr } = await runUntilKilled(root, step, phase)
          expect(signal, stderr).toBe('SIGKILL')

          const harness = await createEngineHarness({ root, clusters: WORKED_EXAMPLE_CLUSTERS })
          try {
            await harness.run(3)
            const [partition] = harness.engine.partitions('dr')
            expect(partition).toMatchObject({ state: 'STOPPED', lastMirrorPosition: { offset: 3 } })
            const page = await harness.cluster('b').readRecords(WORKED_EXAMPLE_TOPIC, 0, { limit: 100 })
            expect(page.records.map((record) => [record.offset, record.type, record.producerId])).toEqual([
              [0, 'DATA', 4001],
              [1, 'DATA', 4001],
              [2, 'DATA', 4002],
              [3, 'ABORT', 4001],
              [4, 'ABORT', 4002],
              [5, 'MIRROR_PID_RESET', null],
            ])
            expect((await harness.cluster('b').describeTopic(WORKED_EXAMPLE_TOPIC)).readOnly).toBe(false)
          } finally {
            await harness.cleanup()
          }
        } finally {
          await rm(root, { recursive: true, force: true })
        }
      })
    }
  }
})
