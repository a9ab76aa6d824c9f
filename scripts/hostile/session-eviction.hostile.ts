// Issue #41 item 5: a viewer signing in over and over must not sign an operator out, nor sign in without limit.
import { expect, it } from 'vitest'
import { send, signIn, target } from './support'

async function sessionRole(cookie: string): Promise<number> {
  return (await send('/api/v1/session', { headers: { cookie }, from: '127.0.0.61' })).status
}

it('1,000 viewer sign-ins leave an operator session valid', async () => {
  const { cookie: operator } = await signIn(target.operatorToken, '127.0.0.61')
  expect(operator).not.toBeNull()
  // From 50 addresses, 20 each: within any per-source limit, so each one opens a session.
  const statuses: number[] = []
  for (let batch = 0; batch < 50; batch++) {
    const from = `127.0.1.${batch + 1}`
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(target.viewerToken, from)))
    statuses.push(...answers.map(({ answer }) => answer.status))
  }
  expect(statuses.filter((status) => status === 200).length).toBe(1000)
  expect(await sessionRole(operator ?? '')).toBe(200)
})

it('limits sign-ins from one source, answering 429 with Retry-After', async () => {
  const answers = []
  for (let n = 0; n < 60; n++) answers.push((await signIn(target.viewerToken, '127.0.0.62')).answer)
  const limited = answers.filter((answer) => answer.status === 429)
  expect(limited.length).toBeGreaterThan(0)
  expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  expect(JSON.parse(limited[0]?.body ?? '{}')).toMatchObject({ error: { code: 'TOO_MANY_REQUESTS' } })
  // Other sources are not held back by it.
  expect((await signIn(target.viewerToken, '127.0.0.63')).answer.status).toBe(200)
})

it('backs off a source that keeps presenting wrong tokens, whatever it presents then', async () => {
  const statuses: number[] = []
  for (let n = 0; n < 150; n++) statuses.push((await send('/api/v1/clusters', { headers: { authorization: `Bearer guess-${n}` }, from: '127.0.0.64' })).status)
  expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true)
  expect(statuses.at(-1)).toBe(429)
  const during = await send('/api/v1/clusters', { headers: { authorization: `Bearer ${target.viewerToken}` }, from: '127.0.0.64' })
  expect(during.status).toBe(429)
  expect((await send('/api/v1/clusters', { headers: { authorization: `Bearer ${target.viewerToken}` }, from: '127.0.0.65' })).status).toBe(200)
})
