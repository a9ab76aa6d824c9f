import { expect, test, type Page } from '@playwright/test'
import { asNewClient, asOperator, expectError, okJson, unique } from '../support/http'
import { lookAt } from '../support/look'
import { issuer, scopedMirrors, signInThroughProvider } from './provider-support'

/**
 * Signing in through the company's identity provider (issue #39) against the test provider of
 * playwright.oidc.config.ts, which signs its ID tokens for real: the browser goes through the provider's login
 * form and back, lands signed in with the person's name and scoped role; a scoped operator may fail over the
 * mirrors in scope and not the others (button disabled with the reason, API 403 with a code, audited under the
 * person's name); an ended session goes back through the provider without a form; sign-out ends the session here
 * and at the provider; a tampered state, a wrong nonce, another issuer or audience are refused with a clear page.
 */

/** The header holds the name, the role, the bell and sign-out without pushing the page wider than the screen. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth), 'the page scrolls sideways').toBe(false)
}

async function misbehave(page: Page, misbehaviour: Record<string, unknown>): Promise<void> {
  expect((await page.request.post(`${issuer}/test/misbehave`, { data: misbehaviour })).status()).toBe(200)
}

test('a scoped operator signs in through the provider, may fail over the mirrors in scope and not the others', async ({ page, context }, testInfo) => {
  const { inScope, outOfScope } = await scopedMirrors(page, 'inScope')

  await signInThroughProvider(page, 'alice', `/mirrors/${inScope}`)
  await expect(page).toHaveURL(new RegExp(`/mirrors/${inScope}$`))
  await expect(page.getByTestId('signed-in-name')).toHaveText('Alice Example')
  await expect(page.getByText('operator · scoped')).toBeVisible()
  const session = await okJson<Record<string, unknown>>(await page.request.get('/api/v1/session'))
  expect(session).toMatchObject({
    method: 'oidc',
    via: 'cookie',
    subject: 'u-alice',
    name: 'Alice Example',
    email: 'alice@example.com',
    role: 'operator',
    roles: [{ role: 'operator', mirrors: ['.*-to-eu-west'] }, { role: 'viewer' }],
  })
  // The session cookie stays SameSite=Strict and httpOnly; nothing the provider handed over is readable by the page.
  const cookies = await context.cookies()
  expect(cookies.find((cookie) => cookie.name === 'mirrorboard_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' })
  expect(await page.evaluate(() => document.cookie)).toBe('')

  // In scope: the controls are there, and the API accepts a dry run from this page.
  await expect(page.getByRole('link', { name: 'Failover…' })).toBeVisible()
  const origin = new URL(page.url()).origin
  const dryRun = await page.request.post(`/api/v1/mirrors/${inScope}/failover`, { headers: { Origin: origin }, data: { dryRun: true } })
  expect(dryRun.status(), await dryRun.text()).toBe(200)

  // What the person starts carries their name: a verification of the mirror in scope.
  const started = await okJson<{ verification: string }>(await page.request.post(`/api/v1/mirrors/${inScope}/verify`, { headers: { Origin: origin }, data: {} }), 202)
  const verification = await okJson<{ requestedBy: unknown }>(await page.request.get(`/api/v1/verifications/${started.verification}`))
  expect(verification.requestedBy).toEqual({ actor: 'user:alice@example.com', actorName: 'Alice Example <alice@example.com>', role: 'operator' })

  // Out of scope: the button is disabled and says why; the API refuses with FORBIDDEN and the reason.
  await page.goto(`/mirrors/${outOfScope}`)
  const refusedButton = page.getByRole('button', { name: 'Failover…' })
  await expect(refusedButton).toBeDisabled()
  await expect(page.getByText(`Your operator role does not extend to mirror ${outOfScope}.`)).toBeVisible()
  await lookAt(page, testInfo, 'oidc-out-of-scope-mirror')
  await expectNoSidewaysScroll(page)
  const refused = await expectError(await page.request.post(`/api/v1/mirrors/${outOfScope}/failover`, { headers: { Origin: origin }, data: { dryRun: true } }), 403, 'FORBIDDEN')
  expect(refused.error.message).toBe(`your operator role does not extend to mirror ${outOfScope}`)
  await page.goto(`/mirrors/${outOfScope}/failover`)
  await expect(page.getByRole('alert').filter({ hasText: `your operator role does not extend to mirror ${outOfScope}` })).toBeVisible()
  // Adding a cluster is an administrator's.
  await expectError(await page.request.post('/api/v1/clusters', { headers: { Origin: origin }, data: { name: unique('nope'), kind: 'embedded' } }), 403, 'FORBIDDEN')

  // The audit log names the person, for the accepted dry run and the refusal alike.
  const audit = await okJson<{ entries: Array<{ actor: string; actorName?: string; action: string; target: string; outcome: string; error: { code: string } | null }> }>(
    await page.request.get('/api/v1/audit?actor=user:alice@example.com&limit=20', { headers: asOperator }),
  )
  expect(audit.entries.find((entry) => entry.target === `/mirrors/${outOfScope}/failover`)).toMatchObject({ actorName: 'Alice Example <alice@example.com>', outcome: 'rejected', error: { code: 'FORBIDDEN' } })
  expect(audit.entries.find((entry) => entry.target === `/mirrors/${inScope}/failover`)).toMatchObject({ actorName: 'Alice Example <alice@example.com>', outcome: 'ok' })
  expect(audit.entries.find((entry) => entry.action === 'session.create')).toMatchObject({ actorName: 'Alice Example <alice@example.com>', outcome: 'ok' })
  // No secret reached the audit log.
  expect(JSON.stringify(audit)).not.toContain(process.env.E2E_OIDC_CLIENT_SECRET ?? 'unset')
})

test('an ended session goes back through the provider without its form; sign-out ends it here and at the provider', async ({ page, context }, testInfo) => {
  await signInThroughProvider(page, 'bob')
  await expect(page.getByTestId('signed-in-name')).toHaveText('Bob Admin')
  await expect(page.getByText('admin', { exact: true })).toBeVisible()
  await lookAt(page, testInfo, 'oidc-signed-in')
  await expectNoSidewaysScroll(page)

  // The session ends (idle or absolute expiry look the same to the browser: the cookie no longer opens anything).
  await context.clearCookies({ name: 'mirrorboard_session' })
  await page.goto('/clusters')
  await expect(page).toHaveURL(/\/clusters$/)
  await expect(page.getByTestId('signed-in-name')).toHaveText('Bob Admin')

  const sessionAnswer = await (await page.request.get('/api/v1/session')).text()
  const cookies = await context.cookies()
  const endSession = page.waitForRequest((request) => new URL(request.url()).pathname === '/session/end')
  await page.getByRole('button', { name: 'Sign out' }).click()
  // RP-initiated logout names the session's ID token as id_token_hint; it was never in a cookie or GET /session.
  const hint = new URL((await endSession).url()).searchParams.get('id_token_hint') ?? ''
  expect(hint).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/)
  expect(new URL((await endSession).url()).searchParams.get('post_logout_redirect_uri')).toMatch(/\/login\?signedOut=1$/)
  expect(sessionAnswer).not.toContain(hint)
  expect(cookies.some((cookie) => cookie.value.includes(hint.split('.')[1] ?? hint))).toBe(false)
  await expect(page).toHaveURL(/\/login\?signedOut=1$/)
  await expect(page.getByRole('status').filter({ hasText: 'You are signed out, here and at Test IdP.' })).toBeVisible()
  expect((await page.request.get('/api/v1/session')).status()).toBe(401)
  // Signed out at the provider too: signing in again shows its form.
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
  await expect(page.getByLabel('Username')).toBeVisible()
  await lookAt(page, testInfo, 'oidc-provider-form')
})

test('refuses a tampered state, a wrong nonce, another issuer or audience, and a person without a role, with a clear page and an audit entry', async ({ page }, testInfo) => {
  await page.setExtraHTTPHeaders(asNewClient())
  await page.goto('/api/v1/auth/oidc/callback?state=forged&code=stolen')
  await expect(page).toHaveURL(/\/login\?signInError=state$/)
  await expect(page.getByRole('alert').filter({ hasText: 'This sign-in was not started in this browser' })).toBeVisible()
  await lookAt(page, testInfo, 'oidc-sign-in-refused')

  for (const [misbehaviour, reason, words] of [
    [{ nonce: 'not-this-sign-in' }, 'nonce', 'does not belong to this sign-in'],
    [{ issuer: 'https://other-issuer.example' }, 'issuer', 'another identity provider'],
    [{ audience: 'another-app' }, 'audience', 'for another application'],
    [{ foreignKey: true }, 'signature', 'not signed by its published keys'],
  ] as const) {
    await page.context().clearCookies()
    // Refusals without a known person are collapsed per client address and minute in the audit log: each
    // comes from an address of its own, as the proxy the e2e server trusts would name it.
    await page.setExtraHTTPHeaders(asNewClient())
    await misbehave(page, misbehaviour)
    await signInThroughProvider(page, 'dave')
    await expect(page, reason).toHaveURL(new RegExp(`/login\\?signInError=${reason}$`))
    await expect(page.getByRole('alert').filter({ hasText: words })).toBeVisible()
    expect((await page.request.get('/api/v1/session')).status()).toBe(401)
  }

  await page.context().clearCookies()
  await signInThroughProvider(page, 'carol')
  await expect(page).toHaveURL(/\/login\?signInError=no-role$/)
  await expect(page.getByRole('alert').filter({ hasText: 'have no role in Mirrorboard' })).toBeVisible()

  const audit = await okJson<{ entries: Array<{ actor: string; actorName?: string; action: string; outcome: string; error: { message: string } | null }> }>(
    await page.request.get('/api/v1/audit?action=session.create&outcome=rejected&limit=50', { headers: asOperator }),
  )
  const messages = audit.entries.map((entry) => entry.error?.message ?? '')
  for (const reason of ['state', 'nonce', 'issuer', 'audience', 'signature']) expect(messages.some((message) => message.startsWith(`sign-in refused (${reason})`)), reason).toBe(true)
  expect(audit.entries.find((entry) => entry.actor === 'user:carol@example.com')).toMatchObject({ actorName: 'Carol Nobody <carol@example.com>' })
})
