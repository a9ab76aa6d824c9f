import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEngineHarness } from './testing/harness'
import { WORKED_EXAMPLE_CLUSTERS, WORKED_EXAMPLE_TOPIC } from './testing/worked-example'

const child = path.join(__dirname, 'testing', 'pid-reset-crash-child.ts')

function runUntilKilled(root: string): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', child, root], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    process_.on('error', reject)
    process_.on('exit', (_code, signal) => resolve({ signal, stderr }))
  })
}

describe('MIRROR_PID_RESET survives a crash (KIP-1279.md §4.3, §11 #28)', () => {
  it('#28 after a SIGKILL following the failover, log replay keeps producer state empty on every replica', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'pid-reset-crash-'))
    try {
      const { signal, stderr } = await runUntilKilled(root)
      expect(signal, stderr).toBe('SIGKILL')
      const harness = await createEngineHarness({ root, clusters: WORKED_EXAMPLE_CLUSTERS })
      try {
        const b = harness.cluster('b')
        const tp = { topic: WORKED_EXAMPLE_TOPIC, partition: 0 }
        const { replicas } = await b.describePartition(tp)
        // Replay rebuilt the producer state of every replica from the segments: the reset emptied it.
        for (const brokerId of replicas) {
          expect({ brokerId, producers: b.replicaLog(tp, brokerId)!.producerStates().map((state) => state.producerId) }).toEqual({ brokerId, producers: [] })
        }
        // 4001 wrote sequences 0 and 1 on the source: without the reset, sequence 0 would be refused or taken as a duplicate.
        const written = await b.produceBatch(tp, { producerId: 4001, producerEpoch: 0, baseSequence: 0, records: [{ value: 'after the crash' }] })
        expect(written).toMatchObject({ baseOffset: 6, duplicate: false })
        expect(await b.openTransactions(tp)).toEqual([])
      } finally {
        await harness.cleanup()
      }
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
