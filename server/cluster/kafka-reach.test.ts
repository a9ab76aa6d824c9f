import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { logger } from '@/server/observability/logger'
import { HostAllowlist } from './kafka/allowed-hosts'
import { ClusterRegistry } from './registry'

/** Issue #41 item 6: where the server may connect for a Kafka cluster, and what a failure tells the caller. */

let dataDir: string
const open: Array<{ close(): Promise<void> | void }> = []
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-kafka-reach-'))
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()))
  vi.restoreAllMocks()
  rmSync(dataDir, { recursive: true, force: true })
})

async function registry(allowed: string | undefined): Promise<ClusterRegistry> {
  const opened = await ClusterRegistry.open({ dataDir, log: logger, kafkaAllowedHosts: HostAllowlist.parse(allowed) })
  open.push(opened)
  return opened
}

/** A TCP listener that is not Kafka: accepts and says nothing. */
async function silentListener(): Promise<number> {
  const sockets: net.Socket[] = []
  const server = net.createServer((socket) => sockets.push(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  open.push({ close: () => new Promise<void>((resolve) => { sockets.forEach((socket) => socket.destroy()); server.close(() => resolve()) }) })
  return (server.address() as net.AddressInfo).port
}

async function refusal(create: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await create
  } catch (error) {
    return error as { code?: string; message: string }
  }
  throw new Error('the cluster was created')
}

describe('reaching a Kafka cluster', () => {
  it('refuses bootstrap servers off MIRRORBOARD_KAFKA_ALLOWED_HOSTS before connecting', async () => {
    const clusters = await registry('kafka.internal:9092')
    const started = Date.now()
    const error = await refusal(clusters.create({ name: 'probe', kind: 'kafka', bootstrapServers: ['127.0.0.1:22'] }))
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('MIRRORBOARD_KAFKA_ALLOWED_HOSTS') })
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('answers a closed port and an open port that is not Kafka alike, message and time', async () => {
    const clusters = await registry(undefined)
    const port = await silentListener()
    const timed = async (server: string) => {
      const started = Date.now()
      const error = await refusal(clusters.create({ name: 'probe', kind: 'kafka', bootstrapServers: [server] }))
      return { code: error.code, message: error.message.replace(server, 'SERVER'), ms: Date.now() - started }
    }
    const closed = await timed('127.0.0.1:1')
    const silent = await timed(`127.0.0.1:${port}`)
    expect(closed.code).toBe('CLUSTER_CONNECTION_FAILED')
    expect(silent.message).toBe(closed.message)
    expect(closed.message).toMatch(/no Kafka broker answered/)
    expect(closed.ms).toBeGreaterThanOrEqual(5900)
    expect(Math.abs(closed.ms - silent.ms)).toBeLessThan(1500)
  })
})
