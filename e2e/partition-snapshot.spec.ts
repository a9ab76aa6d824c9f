import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'
import { lookAt } from './support/look'
import { signIn } from './support/session'

/**
 * Issue #33 "one snapshot, one answer" on the partition page: while the source grows under a paused mirror, the
 * header's records at risk and the log tapes' at-risk range are read from one snapshot, stamped with the same
 * "as of" time, so they never disagree (they read 41 and 45 when the header came from the mirror's figures and the
 * tapes from the logs); and once the source is quiet, they are the failover plan's figure.
 */

const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }

async function partitionOf(request: APIRequestContext, mirror: string): Promise<{ state: string; destinationLogEndOffset: number }> {
  const { partitions } = await okJson<{ partitions: Array<{ state: string; destinationLogEndOffset: number }> }>(
    await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }),
  )
  return partitions[0]!
}

async function write(request: APIRequestContext, cluster: string, count: number, from: number): Promise<void> {
  const records = Array.from({ length: count }, (_, index) => ({ key: `k${from + index}`, value: `v${from + index}` }))
  await okJson(await request.post(`/api/v1/clusters/${cluster}/topics/orders/records`, { headers: asOperator, data: { partition: 0, records } }))
}

/** The header's and the tapes' figures and stamps, read in one pass over the page (no render in between). */
async function reading(page: Page): Promise<{ header: string; headerAsOf: string; strip: string; stripAsOf: string } | null> {
  return page.evaluate(() => {
    const text = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? null
    const header = text('partition-at-risk')
    const headerAsOf = document.querySelector('[data-testid="partition-as-of"] time')?.textContent?.trim() ?? null
    const strip = text('strip-at-risk')
    const stripAsOf = document.querySelector('[data-testid="strip-as-of"] .font-mono')?.textContent?.trim() ?? null
    if (header === null || headerAsOf === null || strip === null || stripAsOf === null) return null
    return { header, headerAsOf, strip, stripAsOf }
  })
}

test('the header, the tapes and the failover plan give one answer, from one snapshot, while the source grows', async ({ page, request }, testInfo) => {
  const source = unique('snap-a')
  const destination = unique('snap-b')
  const mirror = unique('snap')
  await createCluster(request, source)
  await createCluster(request, destination)
  await createTopic(request, source, 'orders')
  await write(request, source, 3, 0)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  await expect.poll(async () => partitionOf(request, mirror), SETTLE).toMatchObject({ state: 'MIRRORING', destinationLogEndOffset: 3 })
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await partitionOf(request, mirror)).state, SETTLE).toBe('PAUSED')
  await write(request, source, 2, 3)

  const path = `/mirrors/${mirror}/partitions/orders/0`
  await signIn(page, 'viewer', path)
  await page.goto(path)
  await expect(page.getByTestId('partition-at-risk')).toHaveText('2 records')
  await expect(page.getByTestId('strip-at-risk')).toHaveText('2')

  let written = 5
  const seen: Array<NonNullable<Awaited<ReturnType<typeof reading>>>> = []
  await test.step('the source grows while the page is open: every reading agrees with itself', async () => {
    for (const batch of [4, 7, 13, 9, 11]) {
      await write(request, source, batch, written)
      written += batch
      // Sampled as the page catches up: whatever moment each reading stands for, both figures are of that moment.
      for (let sample = 0; sample < 5; sample++) {
        const now = await reading(page)
        if (now !== null) seen.push(now)
      }
      const expected = written - 3
      await expect.poll(async () => (await reading(page))?.header, SETTLE).toBe(`${expected} records`)
      const settled = await reading(page)
      expect(settled).not.toBeNull()
      seen.push(settled!)
    }
    for (const now of seen) {
      expect(now.header, `header and tapes as of ${now.headerAsOf}`).toBe(`${now.strip} ${now.strip === '1' ? 'record' : 'records'}`)
      expect(now.stripAsOf).toBe(now.headerAsOf)
    }
    // The stamp moves with the readings: the page is live, not one reading kept.
    expect(new Set(seen.map((now) => now.headerAsOf)).size).toBeGreaterThan(1)
  })

  await test.step('the quiet source: the failover plan gives the same records at risk, and the tapes mark them all', async () => {
    const { plan } = await okJson<{ plan: { partitions: Array<{ recordsAtRisk: number | null; mirroredOffset: number; sourceLogEndOffset: number | null }> } }>(
      await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { dryRun: true } }),
    )
    const planned = plan.partitions[0]!
    expect(planned).toMatchObject({ recordsAtRisk: written - 3, mirroredOffset: 3, sourceLogEndOffset: written })
    await expect(page.getByTestId('partition-at-risk')).toHaveText(`${planned.recordsAtRisk} records`)
    await expect(page.getByTestId('strip-at-risk')).toHaveText(String(planned.recordsAtRisk))
    await expect(page.getByTestId('mirrored-line')).toContainText('mirrored to 3')
  })

  await test.step('nothing moves: the snapshot keeps being read, the record windows are not', async () => {
    const recordReads: string[] = []
    page.on('request', (sent) => {
      if (/\/partitions\/0\/records/.test(new URL(sent.url()).pathname)) recordReads.push(sent.url())
    })
    const snapshots = () => page.waitForResponse((response) => new URL(response.url()).pathname.endsWith(`/mirrors/${mirror}/partitions/orders/0/snapshot`) && response.ok())
    // Two more readings of the page's snapshot, each with the logs as they were.
    await snapshots()
    await snapshots()
    expect(recordReads).toEqual([])
    // A write moves the snapshot's source log end: the source's window is read again, only its new tail: from its
    // last record already read (the seam, checked), not the whole window (issue #33: 2 × ~44 KB every second or two).
    await write(request, source, 1, written)
    const seam = written - 1
    written += 1
    await expect(page.getByTestId('partition-at-risk')).toHaveText(`${written - 3} records`)
    await expect.poll(() => recordReads.length, SETTLE).toBeGreaterThan(0)
    const reads = recordReads.map((url) => new URL(url))
    expect(reads.map((url) => [url.pathname.split('/')[4], url.searchParams.get('fromOffset')])).toEqual(reads.map(() => [source, String(seam)]))
    // And the tape shows the new record after the ones it kept (the tape scrolls sideways: to its end first).
    await page.getByTestId('log-strips-scroller').evaluate((box) => box.scrollTo({ left: box.scrollWidth }))
    await expect(page.locator(`[data-lane="source"][data-offset="${written - 1}"]`)).toHaveAttribute('data-type', 'DATA')
    await expect(page.locator(`[data-lane="source"][data-offset="${seam}"]`)).toHaveAttribute('data-type', 'DATA')
  })

  await lookAt(page, testInfo, 'partition-snapshot', { alsoNarrow: true })
})
