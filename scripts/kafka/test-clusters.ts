import { readFileSync } from 'node:fs'
import { clustersFile } from './paths'

export interface TestCluster {
  /** `host:port` of the PLAINTEXT listener (never the controller listener). */
  bootstrap: string
  /** The broker's `log.dirs`: topic-partition folders such as `<logDir>/<topic>-0/` live here. */
  logDir: string
  clusterId: string
  /** Cluster `b` only: a SASL_PLAINTEXT listener and its one user (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512). */
  sasl?: { bootstrap: string; username: string; password: string; mechanisms: Array<'plain' | 'scram-sha-256' | 'scram-sha-512'> }
  /** Cluster `a` only: an SSL listener requiring a client certificate, with the test CA and client material (PEM). */
  tls?: { bootstrap: string; ca: string; clientCert: string; clientKey: string }
}

export interface TestClusters {
  a: TestCluster
  b: TestCluster
  /** Absolute path of the folder holding Kafka's jars (for `java -cp "<lib>/*"`). */
  lib: string
}

export class TestClustersNotRunningError extends Error {
  readonly code = 'KAFKA_TEST_CLUSTERS_NOT_RUNNING'
  constructor(options?: { cause?: unknown }) {
    super('Kafka test clusters are not running: run `npx tsx scripts/kafka/clusters.ts start`', options)
    this.name = 'TestClustersNotRunningError'
  }
}

function readCluster(raw: unknown, name: string): TestCluster {
  if (typeof raw !== 'object' || raw === null) throw new Error(`${clustersFile}: cluster "${name}" is missing`)
  const record = raw as Record<string, unknown>
  const { bootstrap, logDir, clusterId } = record
  if (typeof bootstrap !== 'string' || typeof logDir !== 'string' || typeof clusterId !== 'string') {
    throw new Error(`${clustersFile}: cluster "${name}" lacks bootstrap/logDir/clusterId`)
  }
  const sasl = record.sasl as TestCluster['sasl'] | undefined
  const tls = record.tls as TestCluster['tls'] | undefined
  return { bootstrap, logDir, clusterId, ...(sasl === undefined ? {} : { sasl }), ...(tls === undefined ? {} : { tls }) }
}

/** Connection details of the two clusters started by `npx tsx scripts/kafka/clusters.ts start`. */
export function getTestClusters(): TestClusters {
  let text: string
  try {
    text = readFileSync(clustersFile, 'utf8')
  } catch (cause) {
    throw new TestClustersNotRunningError({ cause })
  }
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${clustersFile} is not a JSON object`)
  const { clusters, lib } = parsed as { clusters?: Record<string, unknown>; lib?: unknown }
  if (clusters === undefined || typeof lib !== 'string') throw new Error(`${clustersFile} lacks clusters/lib`)
  return { a: readCluster(clusters.a, 'a'), b: readCluster(clusters.b, 'b'), lib }
}
