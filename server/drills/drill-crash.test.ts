import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { callRoute, openTestRuntime } from '@/server/testing/test-runtime'
import * as drillRoute from '@/app/api/v1/drills/[id]/route'
import type { Drill } from '@/lib/api/drills'
import { alive } from '@/server/drills/testing/sandbox-processes'

/**
 * A server SIGKILLed in the middle of a drill: at the next start the drill is finished (failed, saying why) and
 * its sandbox is gone, and production is as it was — the destination still holds the worked example's 0–2 with
 * both transactions open, mirrors on, and the source is unchanged.
 */
process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-drill-crash-fallback-${process.pid}`)

const child = path.join(__dirname, 'testing', 'drill-crash-child.ts')
let dataDir: string

interface Killed {
  drill: string
  sandbox: boolean
  sandboxProcesses: number[]
}

function killDuring(phase: string): Promise<Killed & { signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', child, dataDir, phase], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let fact: Killed | null = null
    process_.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const newline = stdout.indexOf('\n')
      if (newline < 0 || fact !== null) return
      fact = JSON.parse(stdout.slice(0, newline)) as Killed
      process_.kill('SIGKILL')
    })
    process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    process_.on('error', reject)
    process_.on('exit', (_code, signal) => (fact === null ? reject(new Error(`the child ended before the drill reached ${phase}: ${stderr.slice(-2000)}`)) : resolve({ ...fact, signal, stderr })))
  })
}

async function production() {
  const runtime = await openTestRuntime(dataDir, { demo: false })
  return runtime
}

describe('a drill interrupted by SIGKILL', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-drill-crash-'))
    const runtime = await production()
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1, firstProducerId: 4001 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1, firstProducerId: 9001 })
    const a = runtime.clusters.embedded('a')
    await a.createTopic({ name: 'orders', partitions: 1 })
    const p4001 = await a.createTransactionalProducer('tx-4001', { transactionTimeoutMs: 15 * 60_000 })
    const p4002 = await a.createTransactionalProducer('tx-4002', { transactionTimeoutMs: 15 * 60_000 })
    await p4001.send('orders', { partition: 0, records: [{ key: 'A', value: '1' }, { key: 'B', value: '2' }] })
    await p4002.send('orders', { partition: 0, records: [{ key: 'X', value: '9' }] })
    await runtime.engine.createMirror({ name: 'dr', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'] })
    await vi.waitFor(() => expect(runtime.engine.partitions('dr').map((p) => [p.state, p.destinationLogEndOffset])).toEqual([['MIRRORING', 3]]), { timeout: 30_000 })
    await runtime.close()
  }, 60_000)
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  for (const phase of ['failingOver', 'checking'] as const) {
    it(`leaves no sandbox and production untouched when killed while ${phase}`, async () => {
      const killed = await killDuring(phase)
      expect(killed.signal).toBe('SIGKILL')
      expect(killed.sandbox).toBe(true)
      expect(existsSync(path.join(dataDir, 'drills', 'sandboxes', killed.drill))).toBe(true)
      // The sandbox's own process (sandbox-process.ts) ends with the server that started it.
      expect(killed.sandboxProcesses).toHaveLength(1)
      await vi.waitFor(() => expect(killed.sandboxProcesses.filter(alive)).toEqual([]), { timeout: 10_000 })

      const runtime = await production()
      try {
        const { body } = await callRoute(drillRoute.GET, { path: `/api/v1/drills/${killed.drill}`, params: { id: killed.drill } })
        const drill = body as Drill
        expect(drill).toMatchObject({ status: 'failed', phase: 'done', sandbox: { removed: true } })
        expect(drill.error).toContain(`the server stopped while the drill was in its ${phase} phase`)
        expect(readdirSync(path.join(dataDir, 'drills', 'sandboxes'))).toEqual([])
        const b = runtime.clusters.embedded('b')
        const records = (await b.readRecords('orders', 0, { fromOffset: 0, limit: 100 })).records
        expect(records.map((r) => [r.offset, r.type, r.producerId])).toEqual([
          [0, 'DATA', 4001],
          [1, 'DATA', 4001],
          [2, 'DATA', 4002],
        ])
        expect((await b.openTransactions({ topic: 'orders', partition: 0 })).map((t) => t.producerId)).toEqual([4001, 4002])
        expect((await runtime.clusters.embedded('a').describeTopic('orders')).partitions[0]!.logEndOffset).toBe(3)
        await vi.waitFor(() => expect(runtime.engine.partitions('dr')[0]?.state).toBe('MIRRORING'), { timeout: 30_000 })
      } finally {
        await runtime.close()
      }
    }, 90_000)
  }
})
