import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryIdentityTopic } from '@/server/testing/memory-identity-topic'
import { ApiTokenStore } from './api-token-store'
import { SessionStore } from './session-store'

/**
 * The stores under server/ha/shared-identity.ts (issue #40): each change published before it is answered, what
 * another instance published applied without publishing it again, a tombstone ending it, and a record that does
 * not parse ignored. Real files under each store; the topic is a fake of the port.
 */
const dirs: string[] = []
const dir = () => {
  const made = mkdtempSync(path.join(tmpdir(), 'mirrorboard-shared-identity-'))
  dirs.push(made)
  return made
}
afterEach(() => {
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true })
})

describe('shared sessions', () => {
  it('a session opened at one instance is found at another, ends there when signed out, and survives its restart', async () => {
    const topic = new MemoryIdentityTopic()
    const otherDir = dir()
    const [first, second] = [await SessionStore.open(dir()), await SessionStore.open(otherDir)]
    topic.attach(first)
    topic.attach(second)
    const { id, idHash } = await first.create('operator', 'fp-1')
    expect(topic.records).toEqual([{ key: `session/${idHash}`, value: expect.objectContaining({ idHash, role: 'operator' }) }])
    expect(second.find(id)).toBeNull()
    topic.deliver(second)
    expect(second.find(id)).toMatchObject({ role: 'operator', tokenFingerprint: 'fp-1' })
    // Applying is not publishing: the second instance wrote nothing back.
    expect(topic.records).toHaveLength(1)
    await second.flush()
    expect((await SessionStore.open(otherDir)).find(id)).not.toBeNull()

    expect(await second.delete(id)).toBe(true)
    topic.deliver(first)
    expect(first.find(id)).toBeNull()
  })

  it('ignores a record that does not parse or names another session', async () => {
    const store = await SessionStore.open(dir())
    store.applyShared('a'.repeat(64), { idHash: 'b'.repeat(64), role: 'operator', tokenFingerprint: 'x', createdAt: 1, expiresAt: Date.now() + 60_000 })
    store.applyShared('c'.repeat(64), { role: 'admin' })
    expect(store.size).toBe(0)
  })
})

describe('shared API tokens', () => {
  it('a token made at one instance opens another at once after a read, and its revocation reaches it', async () => {
    const topic = new MemoryIdentityTopic()
    const [first, second] = [await ApiTokenStore.open(dir()), await ApiTokenStore.open(dir())]
    topic.attach(first)
    topic.attach(second)
    const { secret } = await first.create({ name: 'ci', role: 'operator', expiresInDays: 1 }, 'test')
    expect(second.find(secret).status).toBe('unknown')
    topic.deliver(second)
    expect(second.find(secret)).toMatchObject({ status: 'live', token: { name: 'ci', role: 'operator' } })
    expect(second.list().map((token) => token.name)).toEqual(['ci'])
    // The secret itself never travels: only its hash names the record.
    expect(JSON.stringify(topic.records)).not.toContain(secret)

    expect(await second.revoke('ci')).toBe(true)
    topic.deliver(first)
    expect(first.find(secret).status).toBe('unknown')
  })
})
