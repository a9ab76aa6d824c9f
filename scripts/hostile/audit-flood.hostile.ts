// Issue #41 item 1: a public endpoint's body must not turn into megabytes of audit log.
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { bearer, send, signIn, target } from './support'

function auditBytes(): number {
  const dir = path.join(target.dataDir, 'audit')
  return readdirSync(dir).reduce((total, name) => total + statSync(path.join(dir, name)).size, 0)
}

it('150 anonymous sign-ins with a 1 MB key leave the audit log under a few hundred KB and the audit page readable', async () => {
  const before = auditBytes()
  const body = JSON.stringify({ ['K'.repeat(1_000_000)]: 1 })
  for (let n = 0; n < 150; n++) {
    const answer = await send('/api/v1/session', { method: 'POST', body, from: '127.0.0.11' })
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
  }
  expect(auditBytes() - before).toBeLessThan(300 * 1024)

  const entries = await send('/api/v1/audit?limit=100', { headers: bearer(target.viewerToken), from: '127.0.0.11' })
  expect(entries.status).toBe(200)
  expect(entries.body.length).toBeLessThan(200 * 1024)
  const { cookie } = await signIn(target.viewerToken, '127.0.0.12')
  const page = await send('/audit', { headers: { cookie: cookie ?? '' }, from: '127.0.0.12' })
  expect(page.status).toBe(200)
  expect(page.body.length).toBeLessThan(2 * 1024 * 1024)
})
