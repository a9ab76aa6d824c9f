import 'server-only'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { openTestRuntime } from '@/server/testing/test-runtime'
import type { Runtime } from '@/server/runtime'
import { kafkajsContractClient, type KafkajsContractClient } from '@/server/cluster/kafka/testing/kafkajs-contract-client'
import { captureServerOutput } from '@/server/cluster/kafka/testing/secret-leak-watch'

/**
 * @internal What the SASL and TLS suites stand on: a topic of their own on the secured cluster holding one record
 * (`value`), a server runtime with a fresh data directory (searched afterwards for a leaked secret), and everything
 * the process prints kept from the start (searched too).
 */
export class SecretTestBed {
  dataDir = ''
  client: KafkajsContractClient | undefined
  output: ReturnType<typeof captureServerOutput> | undefined
  private runtime: Runtime | undefined

  constructor(readonly topic: string) {}

  async open(bootstrap: string, name: string, value: string): Promise<void> {
    this.client = await kafkajsContractClient(bootstrap, name)
    // Earlier runs' topics go too: their names share the part before the first dash (`ks-`, `kt-`).
    await this.client.forget([`${this.topic.split('-')[0]}-`])
    await this.client.createTopic(this.topic, { partitions: 1 })
    await this.client.produce({ topic: this.topic, partition: 0 }, [{ key: 'k', value }])
    this.output = captureServerOutput()
    this.dataDir = mkdtempSync(path.join(tmpdir(), `mirrorboard-${name}-`))
    this.runtime = await openTestRuntime(this.dataDir, { demo: false })
  }

  async close(): Promise<void> {
    this.output?.restore()
    await this.runtime?.close()
    await this.client?.close()
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true })
  }

  /** What the process printed since `open`. */
  printed(): string {
    return this.output?.text() ?? ''
  }
}
