/**
 * SASL against the real SASL_PLAINTEXT listener of test cluster `b` (scripts/kafka/clusters.ts gives it one
 * user for PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512): correct credentials add the cluster and its raw requests
 * (Metadata v12, ListOffsets, Fetch) run over the authenticated connections; a wrong password is refused with
 * the broker's reason; no password appears in any response, log line, audit entry or file but the 0600 secrets
 * file; a restarted server connects again with the stored secret.
 */
import 'server-only'
import { readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as clustersRoute from '@/app/api/v1/clusters/route'
import * as recordsRoute from '@/app/api/v1/clusters/[cluster]/topics/[topic]/partitions/[partition]/records/route'
import * as topicsRoute from '@/app/api/v1/clusters/[cluster]/topics/route'
import { ClusterRegistry } from '@/server/cluster/registry'
import { callRoute } from '@/server/testing/test-runtime'
import { logger } from '@/server/observability/logger'
import { getTestClusters, type TestCluster } from '@/scripts/kafka/test-clusters'
import { filesUnder } from './testing/secret-leak-watch'
import { SecretTestBed } from '@/server/testing/secret-test-bed'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-kafka-sasl-fallback-${process.pid}`)

const RUN = Date.now().toString(36)
const TOPIC = `ks-topic-${RUN}`
const bed = new SecretTestBed(TOPIC)
const WRONG = 'not-the-password-7'

let b: TestCluster & { sasl: NonNullable<TestCluster['sasl']> }


describe('Kafka clusters over SASL', () => {
  beforeAll(async () => {
    const cluster = getTestClusters().b
    if (!cluster.sasl) throw new Error('test cluster b has no SASL listener: restart the test clusters (scripts/kafka/clusters.ts start)')
    b = { ...cluster, sasl: cluster.sasl }
    await bed.open(b.bootstrap, 'kafka-sasl-test', 'over sasl')
  })
  afterAll(() => bed.close())

  it('adds the cluster with each mechanism, refuses a wrong password with the reason, and never shows a password', async () => {
    const { bootstrap, username, password, mechanisms } = b.sasl
    for (const mechanism of mechanisms) {
      const refused = await callRoute(clustersRoute.POST, {
        method: 'POST',
        path: '/api/v1/clusters',
        body: { name: `wrong-${mechanism}`, kind: 'kafka', bootstrapServers: [bootstrap], sasl: { mechanism, username, password: WRONG } },
      })
      expect(refused.status, JSON.stringify(refused.body)).toBe(422)
      expect(refused.body).toMatchObject({ error: { code: 'CLUSTER_CONNECTION_FAILED', message: expect.stringMatching(/authentication failed|Authentication failed|invalid credentials/i) } })

      const name = `sasl-${mechanism}`
      const created = await callRoute(clustersRoute.POST, { method: 'POST', path: '/api/v1/clusters', body: { name, kind: 'kafka', bootstrapServers: [bootstrap], sasl: { mechanism, username, password } } })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body).toMatchObject({ kind: 'kafka', clusterId: b.clusterId, status: 'ok' })
      const topics = await callRoute(topicsRoute.GET, { path: `/api/v1/clusters/${name}/topics`, params: { cluster: name } })
      expect(topics.status, JSON.stringify(topics.body)).toBe(200)
      expect((topics.body as { topics: Array<{ name: string }> }).topics.map((t) => t.name)).toContain(TOPIC)
      const records = await callRoute(recordsRoute.GET, { path: `/api/v1/clusters/${name}/topics/${TOPIC}/partitions/0/records`, params: { cluster: name, topic: TOPIC, partition: '0' } })
      expect((records.body as { records: Array<{ value: string }> }).records.map((r) => r.value)).toEqual(['over sasl'])
      for (const answer of [refused, created, topics]) expect(JSON.stringify(answer.body)).not.toMatch(new RegExp(`${password}|${WRONG}`))
    }
    const listed = await callRoute(clustersRoute.GET, { path: '/api/v1/clusters' })
    expect((listed.body as { clusters: Array<{ name: string }> }).clusters.map((c) => c.name)).toEqual(mechanisms.map((m) => `sasl-${m}`))
    expect(JSON.stringify(listed.body)).not.toContain(password)

    const reopened = await ClusterRegistry.open({ dataDir: bed.dataDir, log: logger })
    try {
      expect((await reopened.list()).map((c) => [c.name, c.open ? 'ok' : 'unavailable'])).toEqual(mechanisms.map((m) => [`sasl-${m}`, 'ok']))
    } finally {
      await reopened.close()
    }

    const secretFiles = mechanisms.map((m) => path.join(bed.dataDir, 'secrets', 'clusters', `sasl-${m}.json`))
    for (const file of filesUnder(bed.dataDir)) {
      const text = readFileSync(file, 'utf8')
      expect(text, file).not.toContain(WRONG)
      if (secretFiles.includes(file)) {
        expect(text).toContain(password)
        expect(statSync(file).mode & 0o777).toBe(0o600)
      } else {
        expect(text, file).not.toContain(password)
      }
    }
    const audit = filesUnder(bed.dataDir).filter((file) => file.includes('audit'))
    expect(audit.length).toBeGreaterThan(0)
    expect(audit.map((file) => readFileSync(file, 'utf8')).join('')).toContain('cluster.create')
    // The capture sees the server's logger (nothing of the above needed a log line; any would be caught).
    logger.info('sasl test probe')
    expect(bed.printed()).toContain('sasl test probe')
    expect(bed.printed()).not.toMatch(new RegExp(`${password}|${WRONG}`))
  })
})
