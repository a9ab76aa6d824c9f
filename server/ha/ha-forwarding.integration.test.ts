/**
 * Issue #40, "one API from any instance": two instances share two Kafka a → Kafka b mirrors through the control
 * cluster (cluster a), each a child process serving the API on loopback (scripts/testing/ha-api-child.ts). A caller
 * talks to the instance that does not run a mirror, with an API token that only that instance knows: the mirror's
 * reads answer the owner's state, its list shows every mirror, and a pause is forwarded to the owner and applied
 * there; the owner's audit log names the caller and the instance that forwarded it. With the owner killed, the
 * request is answered MIRROR_OWNER_UNAVAILABLE naming the owner, until the other instance takes the mirror over
 * and applies it itself. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { TEST_TOKENS } from '@/server/testing/test-runtime'
import { callInstance as call, type ApiInstance as Instance } from '@/scripts/testing/ha-api-instances'
import { instancesSeenBy, PARTITIONS, partitionStates, settle, TwoMirrors } from '@/scripts/testing/ha-two-mirrors'
import { FORWARDED_HEADER, signForwardedCaller, forwardingKey } from './forwarded-caller'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-forwarding-fallback-${process.pid}`)

const suite = new TwoMirrors('fw')
const MIRRORS = suite.mirrors

describe('one API from any instance', () => {
  beforeAll(() => suite.connect())
  afterAll(() => suite.close())

  it('forwards a mirror’s requests to the instance that runs it, lists every mirror anywhere, and names the owner when it cannot', async () => {
    await suite.createMirrors()
    // One mirror each, and each instance's status (with its address) read back by the other.
    const { owner, other, victim, otherMirror } = await suite.startPair()

    // A named token made at the other instance opens the owner too, at once: tokens and sessions are shared through
    // the control cluster (server/ha/shared-identity.ts); a request with credentials not known yet reads it first.
    const created = await call(other, '/tokens', { method: 'POST', body: { name: 'fw-person', role: 'operator' } })
    expect(created.status).toBe(201)
    const personal = created.body.secret as string
    expect((await call(owner, `/mirrors/${victim.name}`, { token: personal })).status).toBe(200)
    // Revoked at one instance, refused by the others.
    const shortLived = await call(owner, '/tokens', { method: 'POST', body: { name: 'fw-short', role: 'viewer' } })
    expect(shortLived.status).toBe(201)
    expect((await call(other, '/session', { token: shortLived.body.secret as string })).status).toBe(200)
    expect((await call(other, '/tokens/fw-short', { method: 'DELETE' })).status).toBe(204)
    await vi.waitFor(async () => expect((await call(owner, '/session', { token: shortLived.body.secret as string })).status).toBe(401), { timeout: 10_000, interval: 100 })
    // A browser session opened at one instance is signed in at the other; signing out at that one ends it at both.
    const signedIn = await fetch(`${other.url}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: TEST_TOKENS.viewer }) })
    expect(signedIn.status).toBe(200)
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!
    expect(cookie).toMatch(/^mirrorboard_session=./)
    const asBrowser = (instance: Instance, method = 'GET') => fetch(`${instance.url}/api/v1/session`, { method, headers: { cookie, origin: instance.url } })
    expect((await asBrowser(owner)).status).toBe(200)
    expect((await asBrowser(owner, 'DELETE')).status).toBe(204)
    await vi.waitFor(async () => expect((await asBrowser(other)).status).toBe(401), { timeout: 10_000, interval: 100 })

    // Reads: the mirror another instance runs answers its state, and the list holds every mirror with its owner.
    const read = await call(other, `/mirrors/${victim.name}`, { token: personal })
    expect(read.status).toBe(200)
    expect(read.body.owner).toBe(owner.id)
    expect(read.headers.get('x-mirrorboard-instance')).toBe(owner.id)
    expect(read.headers.get('etag')).toBe(`"${read.body.stateVersion as string}"`)
    const list = await call(other, '/mirrors', { token: personal })
    expect(list.status).toBe(200)
    expect((list.body.mirrors as Array<{ name: string; owner: string }>).map(({ name, owner }) => [name, owner])).toEqual(
      [[victim.name, owner.id], [otherMirror.name, other.id]].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    )

    // What a forwarded read costs (a figure for docs/high-availability.md, not an assertion).
    const median = async (instance: Instance) => {
      const times: number[] = []
      for (let i = 0; i < 21; i++) {
        const started = performance.now()
        expect((await call(instance, `/mirrors/${victim.name}`, { token: instance === other ? personal : TEST_TOKENS.operator })).status).toBe(200)
        times.push(performance.now() - started)
      }
      return times.sort((a, b) => a - b)[10]!.toFixed(1)
    }
    console.log(`GET /mirrors/{m}: median ${await median(owner)} ms on the owner, ${await median(other)} ms forwarded by the other instance`)

    // A pause sent to the instance that does not run the mirror takes effect on the owner.
    const pause = await call(other, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {}, token: personal })
    expect(pause.status, JSON.stringify(pause.body)).toBe(200)
    expect(await partitionStates(owner, victim.name)).toEqual(Array(PARTITIONS).fill('PAUSED'))
    expect(await partitionStates(other, otherMirror.name)).toEqual(Array(PARTITIONS).fill('MIRRORING'))
    // The owner's audit entry names the person and the instance that forwarded it; the forwarding one writes none
    // (both read the group's shared audit log: the one entry, written by the owner).
    for (const instance of [owner, other]) {
      await vi.waitFor(async () => {
        const audit = (await call(instance, '/audit?action=mirror.topics.pause')).body.entries as Array<Record<string, unknown>>
        expect(audit.map(({ actor, target, outcome, forwardedBy, instance: writer }) => ({ actor, target, outcome, forwardedBy, writer }))).toEqual([
          { actor: 'token:fw-person', target: `/mirrors/${victim.name}/topics/pause`, outcome: 'ok', forwardedBy: other.id, writer: owner.id },
        ])
      }, settle)
    }

    // A forwarded caller signed under another key, or replayed on another request, is refused.
    const forged = signForwardedCaller(forwardingKey('not-the-group-secret-key'), { principal: { actor: 'token:forged' }, from: 'fw-x', method: 'POST', path: `/api/v1/mirrors/${victim.name}/topics/resume` })
    expect((await call(owner, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {}, token: '', headers: { [FORWARDED_HEADER]: forged } })).status).toBe(401)
    const replayed = signForwardedCaller(forwardingKey(suite.secretKey), { principal: { actor: 'token:x' }, from: 'fw-x', method: 'GET', path: `/api/v1/mirrors/${victim.name}` })
    expect((await call(owner, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {}, token: '', headers: { [FORWARDED_HEADER]: replayed } })).status).toBe(401)
    expect(await partitionStates(owner, victim.name)).toEqual(Array(PARTITIONS).fill('PAUSED'))

    const resume = await call(other, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {}, token: personal })
    expect(resume.status, JSON.stringify(resume.body)).toBe(200)
    expect(await partitionStates(owner, victim.name)).toEqual(Array(PARTITIONS).fill('MIRRORING'))

    // Two mirrors created on the other instance: each makes the group rebalance, so the leader balances them
    // (without it the creator would run 6 partitions and the owner 2 until the membership changed).
    const created2 = ['m3', 'm4'].map((name) => suite.named(name))
    for (const { name, topic } of created2) {
      await suite.sourceClient.createTopic(topic, { partitions: PARTITIONS })
      const made = await call(other, '/mirrors', { method: 'POST', body: { name, sourceCluster: 'kafka-a', destinationCluster: 'kafka-b', topics: [topic] } })
      expect(made.status, JSON.stringify(made.body)).toBe(201)
    }
    await vi.waitFor(async () => {
      const seen = await instancesSeenBy(owner)
      expect(seen.map(({ id, mirrors }) => [id, mirrors.length])).toEqual([[owner.id, 2], [other.id, 2]])
      expect(seen.find(({ id }) => id === owner.id)!.mirrors).toContain(victim.name)
    }, settle)
    const everywhere = await call(owner, '/mirrors')
    expect((everywhere.body.mirrors as Array<{ name: string }>).map(({ name }) => name)).toEqual([...MIRRORS, ...created2].map(({ name }) => name).sort())

    // The owner dies: until the group hands its mirror over, the request is refused with the owner named.
    owner.process.kill('SIGKILL')
    await new Promise((resolve) => owner.process.once('exit', resolve))
    const refused = await call(other, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {}, token: personal })
    expect(refused.status).toBe(503)
    expect(refused.body.error?.code).toBe('MIRROR_OWNER_UNAVAILABLE')
    expect(refused.body.error?.details).toEqual({ owner: owner.id, url: owner.url })
    // Taken over, the survivor runs the mirror and applies the request itself.
    await vi.waitFor(async () => expect(await partitionStates(other, victim.name).catch(() => [])).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
    const local = await call(other, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {}, token: personal })
    expect(local.status).toBe(200)
    expect(local.headers.get('x-mirrorboard-instance')).toBeNull()
    expect(await partitionStates(other, victim.name)).toEqual(Array(PARTITIONS).fill('PAUSED'))
  })
})
