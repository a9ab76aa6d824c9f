import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test } from '@playwright/test'
import { asOperator, asViewer, expectError, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { failOver, workedExample } from './support/worked-example-setup'

/**
 * The /alerts page and the header bell. A failover followed by writes to the old source fires SplitBrainWrites
 * (no `for`) within an evaluation: the bell counts it, the page shows it. A receiver that answers 500 is retried
 * with backoff and shown failing; a silence of the mirror is listed and lands in the audit log. Receivers with a
 * non-http(s) URL, an unknown format, or this server's own address, and a silence without an end, are refused.
 */

interface Alert {
  rule: string
  mirror: string
  state: string
  silenced: boolean
}

/** A loopback receiver that answers 500 to everything, counting what it got. */
async function brokenReceiver(): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      hits += 1
      response.statusCode = 500
      response.end('no')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0AB12CD3/s3cretT0ken`, hits: () => hits, server }
}

test('the bell counts a firing alert, the page shows it, a failing receiver and a silence', async ({ page, request }, testInfo) => {
  test.setTimeout(90_000)
  const example = await workedExample(request, 'al')
  await failOver(request, example.mirror)
  await okJson(await request.post(`/api/v1/clusters/${example.source}/topics/orders/records`, { headers: asOperator, data: { partition: 0, records: [{ value: 'late' }] } }))
  const mine = (alerts: Alert[]) => alerts.filter((alert) => alert.mirror === example.mirror)
  await expect
    .poll(async () => mine((await okJson<{ alerts: Alert[] }>(await request.get('/api/v1/alerts?state=firing', { headers: asViewer }))).alerts).map((a) => a.rule), { timeout: 15_000 })
    .toEqual(['SplitBrainWrites'])

  const receiver = await brokenReceiver()
  const receiverName = unique('broken')
  try {
    await signIn(page, 'operator', '/alerts')
    await expect(page.getByRole('link', { name: /^Alerts: \d+ firing$/ })).toBeVisible()
    const firing = page.getByRole('list', { name: 'Firing alerts' }).getByRole('listitem').filter({ hasText: example.mirror })
    await expect(firing).toContainText('SplitBrainWrites')
    await expect(firing).toContainText(`The old source of mirror ${example.mirror} took 1 record since the failover`)

    // Added during the incident, the receiver is sent what fires now: 500, retried 1-2-4-8 s apart, shown failing.
    const form = page.getByRole('form', { name: 'Add a receiver' })
    await form.getByLabel('Name').fill(receiverName)
    await form.getByLabel('URL').fill(receiver.url)
    await form.getByLabel('Format').selectOption('webhook')
    await form.getByRole('button', { name: 'Add receiver' }).click()
    const row = page.getByRole('listitem', { name: `Receiver ${receiverName}` })
    await expect(row).toContainText(/\/hooks\/\*\*\*\/\*\*\*/)
    await expect(row).not.toContainText('s3cretT0ken')
    await expect(row.getByTestId('last-delivery')).toContainText('Failing: answered 500', { timeout: 10_000 })
    await expect(row.getByTestId('last-delivery')).toContainText('after 5 attempts', { timeout: 30_000 })
    expect(receiver.hits()).toBeGreaterThanOrEqual(5)

    // A refused receiver shows the API's code and message, and nothing is added.
    await form.getByLabel('Name').fill(unique('ftp'))
    await form.getByLabel('URL').fill('ftp://pager.example/hook')
    await form.getByRole('button', { name: 'Add receiver' }).click()
    await expect(form.getByRole('alert')).toContainText('VALIDATION_FAILED')
    await expect(form.getByRole('alert')).toContainText('must be http or https')

    const silenceForm = page.getByRole('form', { name: 'Silence a mirror' })
    await silenceForm.getByLabel('Mirror').selectOption(example.mirror)
    await silenceForm.getByLabel('For').selectOption({ label: '1 hour' })
    await silenceForm.getByLabel('Why').fill('failing over on purpose')
    await silenceForm.getByRole('button', { name: 'Silence deliveries' }).click()
    await expect(page.getByRole('listitem', { name: `Silence of ${example.mirror}` })).toContainText('failing over on purpose')
    await expect(firing).toContainText('silenced')
    await lookAt(page, testInfo, 'alerts-page')

    await page.goto('/audit?action=alert.silence.create')
    await expect(page.getByRole('list', { name: 'Audit entries, newest first' })).toContainText('alert.silence.create')
  } finally {
    const receivers = await okJson<{ receivers: Array<{ name: string }> }>(await request.get('/api/v1/alerts/receivers', { headers: asViewer }))
    if (receivers.receivers.some((r) => r.name === receiverName)) await request.delete(`/api/v1/alerts/receivers/${receiverName}`, { headers: asOperator })
    receiver.server.close()
  }
})

test('bad receivers and silences are refused with VALIDATION_FAILED and store nothing; a receiver URL is never answered back', async ({ request, baseURL }) => {
  const before = await okJson<{ receivers: Array<{ name: string; url: string }> }>(await request.get('/api/v1/alerts/receivers', { headers: asViewer }))
  const name = unique('bad')
  await expectError(await request.post('/api/v1/alerts/receivers', { headers: asOperator, data: { name, url: 'ftp://pager.example/hook', format: 'webhook' } }), 400, 'VALIDATION_FAILED')
  await expectError(await request.post('/api/v1/alerts/receivers', { headers: asOperator, data: { name, url: 'https://pager.example/hook', format: 'pagerduty' } }), 400, 'VALIDATION_FAILED')
  const self = await expectError(await request.post('/api/v1/alerts/receivers', { headers: asOperator, data: { name, url: `${baseURL}/api/v1/health`, format: 'webhook' } }), 400, 'VALIDATION_FAILED')
  expect(self.error.message).toContain('this server')
  await expectError(await request.post('/api/v1/alerts/silences', { headers: asOperator, data: { mirror: 'any', comment: 'no end' } }), 400, 'VALIDATION_FAILED')
  await expectError(await request.post('/api/v1/alerts/silences', { headers: asOperator, data: { mirror: 'any', until: Date.now() - 1, comment: 'past' } }), 400, 'VALIDATION_FAILED')
  await expectError(await request.post('/api/v1/alerts/receivers', { headers: asViewer, data: { name, url: 'https://pager.example/hook', format: 'webhook' } }), 403, 'FORBIDDEN')
  const after = await okJson<{ receivers: Array<{ name: string }> }>(await request.get('/api/v1/alerts/receivers', { headers: asViewer }))
  expect(after.receivers.map((r) => r.name)).toEqual(before.receivers.map((r) => r.name))

  const secret = unique('slack')
  const created = await okJson<{ url: string }>(
    await request.post('/api/v1/alerts/receivers', { headers: asOperator, data: { name: secret, url: 'https://bot:pw-secret@hooks.example.invalid/services/T0AB12CD3/B0AB12CD3/Tok3nSecretValue', format: 'slack' } }),
    201,
  )
  try {
    expect(created.url).toBe('https://***@hooks.example.invalid/services/***/***/***')
    const everywhere = [
      await (await request.get('/api/v1/alerts/receivers', { headers: asViewer })).text(),
      await (await request.get(`/api/v1/audit?action=alert.receiver.create`, { headers: asViewer })).text(),
    ].join('\n')
    expect(everywhere).not.toMatch(/pw-secret|Tok3nSecretValue/)
  } finally {
    await request.delete(`/api/v1/alerts/receivers/${secret}`, { headers: asOperator })
  }
})
