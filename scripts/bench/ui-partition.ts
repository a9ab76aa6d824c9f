// UI benchmark: the partition page with 1,000 offsets in view (UI.md §4: first render < 1 s), in Debian's
// Chromium against the production server. A mirror partition of 1,400 records (transactions with COMMIT
// markers among them), mirrored to 1,200 and paused, is opened with `?size=1000`: the tapes show offsets
// 400–1,399, 200 of them at risk. Measured from navigation start to the moment the tapes span 1,000 offsets
// and the columns in view show their records (the tapes are virtualized: the columns in view and a few either
// side are in the DOM), as a median of several cold page loads; baseline: the same page showing 50 offsets.
import { chromium, type Browser } from 'playwright-core'
import { call, startServer } from './api'
import { median, type BenchResult } from './result'

const OPERATOR_TOKEN = 'bench-operator-token'
const RUNS = 7
const MIRRORED = 1_200
const AT_RISK = 200
const BATCH = 100

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

async function waitForPartition(base: string, predicate: (partition: { state: string; destinationHighWatermark: number }) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000
  for (;;) {
    const { partitions } = (await call(base, 'GET', '/api/v1/mirrors/bench/partitions')) as { partitions: Array<{ state: string; destinationHighWatermark: number }> }
    if (partitions[0] !== undefined && predicate(partitions[0])) return
    if (Date.now() > deadline) throw new Error(`the bench partition never got ${what}: ${JSON.stringify(partitions[0])}`)
    await sleep(200)
  }
}

/** Batches of 100: every other one in a transaction that commits, so the tapes carry COMMIT markers. */
async function produce(base: string, batches: number, from: number): Promise<void> {
  const { producer } = (await call(base, 'POST', '/api/v1/clusters/source/producers', { transactionalId: `bench-tx-${from}` })) as { producer: string }
  for (let batch = 0; batch < batches; batch++) {
    const records = Array.from({ length: BATCH - 1 }, (_, index) => ({ key: `k${from + batch * BATCH + index}`, value: `v${index}` }))
    if (batch % 2 === 0) {
      await call(base, 'POST', `/api/v1/clusters/source/producers/${producer}/send`, { topic: 'orders', partition: 0, records })
      await call(base, 'POST', `/api/v1/clusters/source/producers/${producer}/commit`)
    } else {
      await call(base, 'POST', '/api/v1/clusters/source/topics/orders/records', { partition: 0, records: [...records, { key: 'last', value: 'x' }] })
    }
  }
}

async function firstRender(browser: Browser, base: string, size: number, offsets: number): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  try {
    const signedIn = await context.request.post(`${base}/api/v1/session`, { data: { token: OPERATOR_TOKEN }, headers: { Origin: base } })
    if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()} ${await signedIn.text()}`)
    const times: number[] = []
    // One warm-up load (the server's first render of a route compiles nothing, but fills its caches).
    // A string: a function here would be compiled by tsx, whose helpers do not exist in the page.
    await context.addInitScript(`(() => {
      const frame = (at) => {
        const grid = document.querySelector('[role="grid"]')
        if (grid?.getAttribute('aria-colcount') === '${offsets + 1}' && grid.querySelectorAll('[role="gridcell"][data-lane="source"][data-type]').length >= ${Math.min(offsets, 12)}) window.__cellsAt = at
        else requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
    })()`)
    for (let run = 0; run <= RUNS; run++) {
      const page = await context.newPage()
      await page.goto(`${base}/mirrors/bench/partitions/orders/0?size=${size}`, { waitUntil: 'commit' })
      // Timed in the page: the first animation frame in which the tapes span the whole page of offsets
      // (aria-colcount) and the columns in view show their records. (An evaluate after a wait would also count
      // the main thread's next long task, hydration, and the round trip, which the user does not see.)
      await page.waitForFunction(() => (window as unknown as { __cellsAt?: number }).__cellsAt !== undefined, undefined, { timeout: 30_000 })
      // That frame is on screen once painted: a first contentful paint after it is when the user sees the cells.
      const elapsed = await page.evaluate(() => Math.max((window as unknown as { __cellsAt: number }).__cellsAt, performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0))
      const [responseStart, responseEnd] = await page.evaluate(() => {
        const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined
        return [navigation?.responseStart ?? 0, navigation?.responseEnd ?? 0]
      })
      if (run > 0) times.push(elapsed)
      if (process.env.BENCH_VERBOSE) console.log(`  size ${size}: cells at ${elapsed.toFixed(0)} ms, first byte ${responseStart.toFixed(0)} ms, last byte ${responseEnd.toFixed(0)} ms`)
      await page.close()
    }
    return times
  } finally {
    await context.close()
  }
}

export async function benchUiPartition(): Promise<BenchResult[]> {
  const server = await startServer()
  let browser: Browser | undefined
  try {
    const { base } = server
    await call(base, 'POST', '/api/v1/clusters', { name: 'source', kind: 'embedded', brokers: 1 })
    await call(base, 'POST', '/api/v1/clusters', { name: 'destination', kind: 'embedded', brokers: 1 })
    await call(base, 'POST', '/api/v1/clusters/source/topics', { name: 'orders', partitions: 1 })
    await produce(base, MIRRORED / BATCH, 0)
    await call(base, 'POST', '/api/v1/mirrors', { name: 'bench', sourceCluster: 'source', destinationCluster: 'destination', topics: ['orders'] })
    await waitForPartition(base, (partition) => partition.state === 'MIRRORING' && partition.destinationHighWatermark === MIRRORED, `MIRRORING at ${MIRRORED}`)
    await call(base, 'POST', '/api/v1/mirrors/bench/topics/pause', {})
    await waitForPartition(base, (partition) => partition.state === 'PAUSED', 'PAUSED')
    await produce(base, AT_RISK / BATCH, MIRRORED)

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
    const thousand = median(await firstRender(browser, base, 1000, 1000))
    const fifty = median(await firstRender(browser, base, 50, 50))
    return [
      {
        name: 'partition page, 1,000 offsets: first render',
        value: thousand,
        unit: 'ms',
        baseline: { name: '50 offsets', value: fifty },
        ratio: thousand / fifty,
        goal: '< 1,000 ms',
      },
    ]
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${server.errors()}`, { cause: error })
  } finally {
    await browser?.close()
    await server.close()
  }
}
