/**
 * TLS against the real SSL listener of test cluster `a` (scripts/kafka/clusters.ts: a test CA, a broker
 * certificate for 127.0.0.1, and a required client certificate): with the CA and the client certificate the
 * cluster is added and its raw requests (Metadata v12, ListOffsets, Fetch) run over TLS; without the CA the
 * broker's certificate is refused, and without a client certificate the broker refuses us, each with the reason
 * and nothing saved; the client key appears in no response, log line or file but the 0600 secrets file.
 */
import 'server-only'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as recordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/records/route'
import { ClusterRegistry } from '@/server/cluster/registry'
import { callRoute } from '@/server/testing/test-runtime'
import { logger } from '@/server/observability/logger'
import { getTestClusters, type TestCluster } from '@/scripts/kafka/test-clusters'
import { filesUnder } from './testing/secret-leak-watch'
import { SecretTestBed } from '@/server/testing/secret-test-bed'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-tls-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const TOPIC = `kt-topic-${RUN}`
const bed = new SecretTestBed(TOPIC)

let a: TestCluster & { tls: NonNullable<TestCluster['tls']> }


/** The key's base64 body without its PEM lines: what a leak would carry, wrapped or not. */
const keyBody = () => a.tls.clientKey.split('\n').filter((line) => line !== '' && !line.startsWith('-----')).join('').slice(0, 64)

describe('Kafka clusters over TLS', () => {
  beforeAll(async () => {
    const cluster = getTestClusters().a
    if (!cluster.tls) throw new Error('test cluster a has no SSL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    a = { ...cluster, tls: cluster.tls }
    await bed.open(a.bootstrap, 'kafka-tls-test', 'over tls')
  })
  afterAll(() => bed.close())

  it('adds the cluster with the CA and a client certificate, refuses an unknown CA and a missing certificate with the reason, and never shows the key', async () => {
    const { bootstrap, ca, clientCert, clientKey } = a.tls
    const create = (name: string, ssl: unknown) => callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [bootstrap], ssl } })

    const unknownCa = await create('tls-no-ca', { cert: clientCert, key: clientKey })
    expect(unknownCa.status, JSON.stringify(unknownCa.body)).toBe(422)
    expect(unknownCa.body).toMatchObject({ error: { code: 'CLUSTER_CONNECTION_FAILED', message: expect.stringMatching(/self[- ]signed certificate|unable to verify|certificate/i) } })
    const noCertificate = await create('tls-no-cert', { ca })
    expect(noCertificate.status, JSON.stringify(noCertificate.body)).toBe(422)
    expect(noCertificate.body).toMatchObject({ error: { code: 'CLUSTER_CONNECTION_FAILED' } })
    for (const refused of ['tls-no-ca', 'tls-no-cert']) expect(existsSync(path.join(bed.dataDir, 'secrets', 'clusters', `${refused}.json`))).toBe(false)

    const created = await create('tls', { ca, cert: clientCert, key: clientKey })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ kind: 'kafka', clusterId: a.clusterId, status: 'ok' })
    const records = await callRoute(recordsRoute.GET, { path: `/api/v1/clusters/tls/topics/${TOPIC}/partitions/0/records`, params: { cluster: 'tls', topic: TOPIC, partition: '0' } })
    expect(records.status, JSON.stringify(records.body)).toBe(200)
    expect((records.body as { records: Array<{ value: string }> }).records.map((r) => r.value)).toEqual(['over tls'])
    const listed = await callRoute(clustersRoute.GET, { path: '/api/v1/clusters' })
    expect((listed.body as { clusters: Array<{ name: string }> }).clusters.map((c) => c.name)).toEqual(['tls'])

    const reopened = await ClusterRegistry.open({ dataDir: bed.dataDir, log: logger })
    try {
      expect((await reopened.list()).map((c) => [c.name, c.open ? 'ok' : 'unavailable'])).toEqual([['tls', 'ok']])
    } finally {
      await reopened.close()
    }

    const secret = path.join(bed.dataDir, 'secrets', 'clusters', 'tls.json')
    expect(statSync(secret).mode & 0o777).toBe(0o600)
    for (const file of filesUnder(bed.dataDir)) {
      if (file === secret) continue
      expect(readFileSync(file, 'utf8'), file).not.toContain(keyBody())
    }
    for (const answer of [unknownCa, noCertificate, created, records, listed]) expect(JSON.stringify(answer.body)).not.toContain(keyBody())
    logger.info('tls test probe')
    expect(bed.printed()).toContain('tls test probe')
    expect(bed.printed()).not.toContain(keyBody())
  })
})
