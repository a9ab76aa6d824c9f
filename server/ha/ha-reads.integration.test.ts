/**
 * Issue #40, "one API from any instance", for what a browser or the CLI reads: two instances share two Kafka a →
 * Kafka b mirrors through the control cluster (cluster a), each a child process serving the API on loopback
 * (scripts/testing/ha-api-child.ts). Asked of the instance that does not run a mirror: its live events arrive on
 * that instance's stream (and not on a stream scoped to the other mirror), a drill and a verification started on the
 * owner are found by id (and a drill cancelled) there, the overview's "needs attention" lists its findings, and
 * GET /audit lists the owner's entries from the shared audit topic. Real brokers (`npx tsx scripts/kafka/clusters.ts start`).
 */
import 'server-only'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { TEST_TOKENS } from '@/server/testing/test-runtime'
import { callInstance as call, type ApiInstance as Instance } from '@/scripts/testing/ha-api-instances'
import { instancesSeenBy, PARTITIONS, partitionStates, settle, TwoMirrors } from '@/scripts/testing/ha-two-mirrors'

process.env.MIRRORBOARD_DATA_DIR = path.join(tmpdir(), `mirrorboard-ha-reads-fallback-${process.pid}`)

const suite = new TwoMirrors('rd')

/** An open GET /events stream: the events read so far, by name and data. */
function openStream(instance: Instance, token: string, types: string) {
  const abort = new AbortController()
  const events: Array<{ id: string; type: string; data: Record<string, unknown> }> = []
  const done = (async () => {
    const response = await fetch(`${instance.url}/api/v1/events?types=${types}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal })
    expect(response.status).toBe(200)
    const decoder = new TextDecoder()
    let pending = ''
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const message = pending.slice(0, end)
        pending = pending.slice(end + 2)
        const field = (name: string) => message.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2)
        const type = field('event')
        const data = field('data')
        if (type !== undefined && data !== undefined) events.push({ id: field('id')!, type, data: JSON.parse(data) as Record<string, unknown> })
      }
    }
  })().catch(() => undefined)
  return { events, close: async () => (abort.abort(), await done) }
}

let victim: { name: string; topic: string }
let otherMirror: { name: string; topic: string }
let owner: Instance
let other: Instance
let verificationId = ''

describe('reads from any instance', () => {
  beforeAll(async () => {
    await suite.connect()
    await suite.createMirrors()
    ;({ owner, other, victim, otherMirror } = await suite.startPair())
  }, 240_000)
  afterAll(() => suite.close())

  it('carries the owner’s live events on the other instance’s stream, within the caller’s scope', async () => {
    // Live events: a stream opened on the other instance carries the owner's mirror's events (relayed), and a
    // stream scoped to the other mirror does not.
    const scoped = await call(other, '/tokens', { method: 'POST', body: { name: 'rd-scoped', role: 'viewer', mirrors: [otherMirror.name] } })
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(201)
    const everything = openStream(other, TEST_TOKENS.viewer, 'partition')
    const narrow = openStream(other, scoped.body.secret as string, 'partition')
    // The relay's stream is open once the other instance has listed the owner: give it the time a reconnect takes.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const pause = await call(owner, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {} })
    expect(pause.status, JSON.stringify(pause.body)).toBe(200)
    try {
      await vi.waitFor(() => {
        const paused = everything.events.filter(({ type, data }) => type === 'partition' && data.mirror === victim.name && data.to === 'PAUSED')
        expect(paused.map(({ data }) => data.partition).sort()).toEqual([...Array(PARTITIONS).keys()])
      }, settle)
      expect(narrow.events.filter(({ data }) => data.mirror === victim.name)).toEqual([])
    } finally {
      expect((await call(owner, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {} })).status).toBe(200)
      await everything.close()
      await narrow.close()
    }
  })

  it('lists the owner’s audit entries on the other instance, from the shared audit topic', async () => {
    const everything = openStream(other, TEST_TOKENS.viewer, 'audit')
    expect((await call(owner, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {} })).status).toBe(200)
    expect((await call(owner, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {} })).status).toBe(200)
    // The audit log: the owner's entry, read on the other instance from the shared audit topic.
    await vi.waitFor(async () => {
      const audit = (await call(other, '/audit?action=mirror.topics.*&limit=2')).body.entries as Array<Record<string, unknown>>
      expect(audit.map(({ actor, target, outcome, instance }) => ({ actor, target, outcome, instance }))).toEqual([
        { actor: 'token:operator', target: `/mirrors/${victim.name}/topics/resume`, outcome: 'ok', instance: owner.id },
        { actor: 'token:operator', target: `/mirrors/${victim.name}/topics/pause`, outcome: 'ok', instance: owner.id },
      ])
    }, settle)
    // The same log on both, filters and paging as before.
    const both = await Promise.all([owner, other].map(async (instance) => (await call(instance, '/audit?limit=1')).body.entries as Array<{ id: number }>))
    expect(both[0]).toEqual(both[1])
    const older = (await call(other, `/audit?limit=5&before=${both[1]![0]!.id}`)).body.entries as Array<{ id: number }>
    expect(older.length).toBeGreaterThan(0)
    expect(older.every(({ id }) => id < both[1]![0]!.id)).toBe(true)
    expect((await call(owner, `/audit?limit=5&before=${both[1]![0]!.id}`)).body.entries).toEqual(older)
    // ... and its audit event on the other instance's stream.
    await vi.waitFor(() => expect(everything.events.some(({ type, data }) => type === 'audit' && data.target === `/mirrors/${victim.name}/topics/pause`)).toBe(true), settle)
    await everything.close()
  })

  it('merges the owner’s findings into “needs attention” on the other instance', async () => {
    expect((await call(owner, `/mirrors/${victim.name}/topics/pause`, { method: 'POST', body: {} })).status).toBe(200)
    // Needs attention on the other instance: the owner's paused partitions.
    try {
      await vi.waitFor(async () => {
        const attention = (await call(other, '/attention')).body as { items: Array<{ mirror: string; kind: string }>; totals: { paused: number }; instancesMissing?: string[] }
        expect(attention.items.filter(({ mirror }) => mirror === victim.name).map(({ kind }) => kind)).toEqual(Array(PARTITIONS).fill('paused'))
        expect(attention.totals.paused).toBe(PARTITIONS)
        expect(attention.instancesMissing).toBeUndefined()
      }, settle)
    } finally {
      expect((await call(other, `/mirrors/${victim.name}/topics/resume`, { method: 'POST', body: {} })).status).toBe(200)
    }
    await vi.waitFor(async () => expect(await partitionStates(owner, victim.name)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
  })

  it('finds a drill and a verification started on the owner by id on the other instance', async () => {
    const everything = openStream(other, TEST_TOKENS.viewer, 'drill')
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    // A verification and a drill started on the owner, found by id on the other instance.
    const verify = await call(owner, `/mirrors/${victim.name}/verify`, { method: 'POST', body: {} })
    expect(verify.status, JSON.stringify(verify.body)).toBe(202)
    const verification = await call(other, `/verifications/${verify.body.verification as string}`)
    expect(verification.status, JSON.stringify(verification.body)).toBe(200)
    expect(verification.body.mirror).toBe(victim.name)
    expect(verification.headers.get('x-mirrorboard-instance')).toBe(owner.id)
    const drill = await call(owner, `/mirrors/${victim.name}/drills`, { method: 'POST', body: {} })
    expect(drill.status, JSON.stringify(drill.body)).toBe(202)
    const id = drill.body.drill as string
    const found = await call(other, `/drills/${id}`)
    expect(found.status, JSON.stringify(found.body)).toBe(200)
    expect({ id: found.body.id, mirror: found.body.mirror }).toEqual({ id, mirror: victim.name })
    expect(found.headers.get('x-mirrorboard-instance')).toBe(owner.id)
    // A cancel sent to the other instance is applied where the drill runs (or it had finished: its status says so).
    const cancel = await call(other, `/drills/${id}/cancel`, { method: 'POST', body: {} })
    expect([200, 409], JSON.stringify(cancel.body)).toContain(cancel.status)
    expect(cancel.headers.get('x-mirrorboard-instance')).toBe(owner.id)
    // No instance keeps this one: NOT_FOUND, answered by the instance asked.
    const unknown = await call(other, '/drills/d-nosuchdrill')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('x-mirrorboard-instance')).toBeNull()
    // The drill's events reached the other instance's stream too.
    await vi.waitFor(() => expect(everything.events.some(({ type, data }) => type === 'drill' && data.id === id)).toBe(true), settle)

    await everything.close()
    verificationId = verify.body.verification as string
  })

  it('names the instance that kept a record when it does not answer', async () => {
    // The owner dies: a record only it kept cannot be looked up, and the answer says where it was.
    owner.process.kill('SIGKILL')
    await new Promise((resolve) => owner.process.once('exit', resolve))
    const gone = await call(other, `/verifications/${verificationId}`)
    expect(gone.status).toBe(503)
    expect(gone.body.error?.code).toBe('MIRROR_OWNER_UNAVAILABLE')
    expect(gone.body.error?.details).toEqual({ owner: owner.id, url: owner.url })
  })

  it('hands a stopped instance’s mirrors over at once: it leaves the group and removes its status', async () => {
    // The survivor took both mirrors over after the kill above. A third instance joins and is given one of them.
    await vi.waitFor(async () => expect((await instancesSeenBy(other)).find(({ id }) => id === other.id)?.mirrors).toHaveLength(2), settle)
    const third = await suite.instances.start('rd-i3', suite.brokers.a.bootstrap)
    await vi.waitFor(async () => {
      const seen = await instancesSeenBy(other)
      expect(seen.filter(({ alive }) => alive).map(({ id, mirrors }) => [id, mirrors.length]), third.output.slice(-3000)).toEqual([[other.id, 1], [third.id, 1]])
    }, { timeout: 120_000, interval: 500 })
    const moved = (await instancesSeenBy(other)).find(({ id }) => id === third.id)!.mirrors[0]!
    await vi.waitFor(async () => expect(await partitionStates(third, moved)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)

    // SIGTERM: by the time the process has exited, the coordinator has its LeaveGroup (a killed member would stay
    // listed until its session times out) and its status record is gone.
    const members = async () => {
      const admin = new Kafka({ brokers: [suite.brokers.a.bootstrap], logLevel: logLevel.NOTHING }).admin()
      await admin.connect()
      try {
        return (await admin.describeGroups([suite.group])).groups[0]!.members.map(({ memberId }) => memberId)
      } finally {
        await admin.disconnect()
      }
    }
    expect((await members()).filter((member) => member.includes(third.id))).toHaveLength(1)
    third.process.kill('SIGTERM')
    const code = await new Promise((resolve) => third.process.once('exit', resolve))
    expect(code, third.output.slice(-3000)).toBe(0)
    expect((await members()).filter((member) => member.includes(third.id))).toEqual([])
    // (The owner killed above stays listed, not alive, until its record ages out; the stopped one is not listed at all.)
    await vi.waitFor(async () => expect((await instancesSeenBy(other)).map(({ id }) => id)).not.toContain(third.id), settle)
    await vi.waitFor(async () => expect(await partitionStates(other, moved)).toEqual(Array(PARTITIONS).fill('MIRRORING')), settle)
  })
})
