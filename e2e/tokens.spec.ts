import { expect, test } from '@playwright/test'
import { expectError, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * /tokens (issue #39): an administrator creates a named API token scoped to some mirrors; its secret is shown
 * once with a copy button, works as a bearer token acting as token:<name> within its scope, is gone from the
 * page after, and revoking the token ends it. A viewer gets no Tokens link and a page saying who may.
 */

test('an administrator creates a scoped token, copies its secret once, sees it used, and revokes it', async ({ page, context, request }, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const name = unique('ci').toLowerCase()
  await signIn(page, 'operator', '/')
  await page.getByRole('navigation').getByRole('link', { name: 'Tokens' }).click()
  await expect(page.getByRole('heading', { name: 'API tokens', level: 1 })).toBeVisible()

  const form = page.getByRole('form', { name: 'Create a token' })
  await form.getByLabel('Name').fill(name)
  await form.getByLabel('Role').selectOption('operator')
  await form.getByLabel('Expires in (days)').fill('30')
  await form.getByLabel('Mirrors (optional)').fill('.*-to-eu-west')
  await form.getByRole('button', { name: 'Create token' }).click()

  const fresh = page.getByRole('status', { name: 'New token' })
  await expect(fresh).toContainText(`Copy the token ${name} now: it is not shown again.`)
  const secret = (await fresh.getByTestId('token-secret').textContent())?.trim() ?? ''
  expect(secret).toMatch(/^mbk_/)
  await fresh.getByRole('button', { name: 'Copy', exact: true }).click()
  await expect(fresh.getByRole('button', { name: 'Copied', exact: true })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  const row = page.getByRole('listitem', { name: `Token ${name}` })
  await expect(row).toContainText('operator on mirrors matching .*-to-eu-west')
  await expect(row).toContainText('never used')
  await lookAt(page, testInfo, 'tokens-created')

  // The secret is a bearer token acting as token:<name>, within its scope.
  const bearer = { Authorization: `Bearer ${secret}` }
  const session = await okJson<{ subject: string; roles: unknown[] }>(await request.get('/api/v1/session', { headers: bearer }))
  expect(session).toEqual(expect.objectContaining({ subject: `token:${name}`, roles: [{ role: 'operator', mirrors: ['.*-to-eu-west'] }] }))
  await expectError(await request.post('/api/v1/mirrors/billing-dr/topics/pause', { headers: bearer, data: {} }), 403, 'FORBIDDEN')

  // Once dismissed the secret is nowhere: not on the page, not after a reload; the row shows the token was used.
  await fresh.getByRole('button', { name: 'I have copied it' }).click()
  await expect(fresh).toHaveCount(0)
  await page.reload()
  await expect(row).toContainText('last used')
  expect(await page.content()).not.toContain(secret.slice(10))
  await lookAt(page, testInfo, 'tokens-list')

  await row.getByRole('button', { name: 'Revoke' }).click()
  const dialog = page.getByRole('dialog', { name: `Revoke ${name}?` })
  await expect(dialog).toContainText('Every request with this token is refused from now on.')
  await dialog.getByRole('button', { name: 'Revoke token' }).click()
  await expect(row).toHaveCount(0)
  await expectError(await request.get('/api/v1/session', { headers: bearer }), 401, 'UNAUTHENTICATED')

  // The create form refuses a bad name with the API's code and message.
  await form.getByLabel('Name').fill('Not A Name')
  await form.getByRole('button', { name: 'Create token' }).click()
  await expect(form.getByRole('alert')).toContainText('VALIDATION_FAILED')
})

test('a viewer gets no Tokens link, and the page says who may manage tokens', async ({ page }, testInfo) => {
  await signIn(page, 'viewer', '/tokens')
  await expect(page.getByRole('heading', { name: 'API tokens need the admin role everywhere' })).toBeVisible()
  await expect(page.getByRole('navigation').getByRole('link', { name: 'Tokens' })).toHaveCount(0)
  await lookAt(page, testInfo, 'tokens-viewer')
})
