import { expect, test } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, expectError, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'
import { SETTLE, mirrorStates } from './support/worked-example-setup'

/**
 * The old source a planned switchover left fenced (issue #34), on the mirror and operation pages: which topics
 * refuse writes and since which switchover, and the operator's unfence behind the mirror's name typed out. A
 * refusal shows the API's code and message in the dialog (CONFLICT while another switchover of the mirror runs);
 * once that one is cancelled, the unfence lifts the fence and the old source takes writes again.
 */

type Operation = { id: string; status: string; switchover?: { phase: string } }

test('the fenced old source on the mirror and operation pages, refused while a switchover runs, then unfenced', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000)
  const source = unique('fence-a')
  const destination = unique('fence-b')
  const mirror = unique('fence')
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  await createTopic(request, source, 'orders')
  await createTopic(request, source, 'ledger')
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders', 'ledger'] } }), 201)
  await expect.poll(async () => (await mirrorStates(request, mirror)).map((p) => p.state).join(), SETTLE).toBe('MIRRORING,MIRRORING')

  // orders switches over; ledger keeps mirroring.
  const orders = await okJson<{ operation: string }>(await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { type: 'planned', topics: ['orders'], confirm: mirror } }), 202)
  await expect.poll(async () => (await okJson<Operation>(await request.get(`/api/v1/operations/${orders.operation}`, { headers: asViewer }))).status, SETTLE).toBe('succeeded')
  await expectError(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { records: [{ value: 'fenced' }] } }), 409, 'TOPIC_WRITE_FENCED')

  await signIn(page, 'operator', `/operations/${orders.operation}`)
  const panel = page.getByTestId('source-fence')
  await expect(panel).toContainText(`The old source ${source} refuses client writes`)
  await expect(panel.getByRole('list', { name: 'Fenced topics' })).toHaveText('orders')
  await expect(page.getByTestId('operation-rto')).toContainText(/^RTO\d/)
  await lookAt(page, testInfo, 'source-fence-operation')

  // A second switchover (ledger) waits for a transaction left open on the source, within a long grace: the unfence is refused meanwhile.
  const producer = await okJson<{ producer: string }>(await request.post(`/api/v1/clusters/${source}/producers`, { headers: asOperator, data: { transactionalId: unique('tx') } }), 201)
  await okJson(await request.post(`/api/v1/clusters/${source}/producers/${producer.producer}/send`, { headers: asOperator, data: { topic: 'ledger', partition: 0, records: [{ value: 'open' }] } }))
  const ledger = await okJson<{ operation: string }>(
    await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { type: 'planned', topics: ['ledger'], transactionGraceMs: 900_000, confirm: mirror } }),
    202,
  )
  await expect.poll(async () => (await okJson<Operation>(await request.get(`/api/v1/operations/${ledger.operation}`, { headers: asViewer }))).switchover?.phase, SETTLE).toBe('fenceSource')

  await page.goto(`/mirrors/${mirror}`)
  await expect(panel).toBeVisible()
  await panel.getByRole('button', { name: 'Unfence…' }).click()
  const dialog = page.getByRole('dialog', { name: `Unfence the old source ${source}?` })
  const confirm = dialog.getByRole('button', { name: 'Unfence', exact: true })
  await expect(confirm).toBeDisabled()
  await dialog.getByLabel(`Type ${mirror} to confirm`).fill(mirror)
  await confirm.click()
  await expect(dialog.getByRole('alert')).toContainText('CONFLICT')
  await expect(dialog).toContainText('The unfence was refused')
  await lookAt(page, testInfo, 'source-fence-refused')

  // Cancelled, the ledger switchover rolls back (its own fence lifted); now the unfence goes through.
  await okJson(await request.post(`/api/v1/operations/${ledger.operation}/cancel`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await okJson<Operation>(await request.get(`/api/v1/operations/${ledger.operation}`, { headers: asViewer }))).status, SETTLE).toBe('rolledBack')
  await confirm.click()
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('source-unfenced')).toContainText(`Lifted the fence on 1 topic of ${source}`)
  await expect(panel).toHaveCount(0)
  await lookAt(page, testInfo, 'source-fence-lifted')
  await okJson(await request.post(`/api/v1/clusters/${source}/topics/orders/records`, { headers: asOperator, data: { records: [{ value: 'writable again' }] } }))
  const audit = await okJson<{ entries: Array<{ target: string; error: { code: string } | null }> }>(await request.get('/api/v1/audit?action=mirror.unfence&limit=50', { headers: asViewer }))
  const ours = audit.entries.filter((entry) => entry.target === `/mirrors/${mirror}/unfence`)
  expect(ours.map((entry) => entry.error?.code ?? 'ok').sort()).toEqual(['CONFLICT', 'ok'])
})
