// The mirror page in Chromium against the production server (UI.md §4): a 10,000-partition mirror, from
// navigation to the first table rows on screen, and the page's main-thread busy time per second while every
// partition mirrors and a producer writes to the source. Server setup is the HTTP API benchmark's.
import { performance } from 'node:perf_hooks'
import { chromium, type Browser, type Page } from 'playwright-core'
import { OPERATOR_TOKEN, PARTITIONS_PER_TOPIC, call, hasProductionBuild, setUpMirror, startServer } from './api'
import { median, type BenchResult } from './result'

const TOPICS = 10
const NAVIGATIONS = 5
/**
 * Between two navigations: the page it closed leaves the server building answers nobody reads any more (the
 * 4.6 MB partition list, the lag history of 10,000 partitions), which would otherwise be counted in the next
 * page's first byte. A user opens the page on a server that is only mirroring.
 */
const SETTLE_MS = 5_000
const BUSY_WINDOWS = 3
const BUSY_WINDOW_MS = 10_000
const WARMUP_MS = 3_000
const PRODUCE_EVERY_MS = 50
const RECORDS_PER_POST = 10

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Records, inside the page, the first animation frame in which a partition row is on screen (laid out by the
 * stylesheet, inside the viewport: what the user sees, not its mere presence in the DOM), and the first in
 * which the table holds the whole list (sorting and filtering work). performance.now(): ms since navigation start.
 */
const ROWS_PROBE = `
  (() => {
    const visibleRow = () => {
      for (const row of document.querySelectorAll('[data-partition]')) {
        const box = row.getBoundingClientRect()
        if (box.width > 0 && box.height > 0 && box.top < innerHeight && box.bottom > 0 && getComputedStyle(row).display === 'grid') return true
      }
      return false
    }
    const frame = (at) => {
      if (window.__rowsVisibleAt === undefined && visibleRow()) window.__rowsVisibleAt = at
      if (window.__completeAt === undefined && document.querySelector('[data-testid="partition-scroll"][data-complete="true"] [data-partition]')) window.__completeAt = at
      if (window.__rowsVisibleAt === undefined || window.__completeAt === undefined) requestAnimationFrame(frame)
    }
    requestAnimationFrame(frame)
  })()
`

interface Navigation {
  /** Navigation start → first frame with a partition row on screen. */
  rowsVisible: number
  /** Navigation start → first frame with the whole list in the table. */
  complete: number
  /** The HTML's first and last byte, for where the time went. */
  responseStart: number
  responseEnd: number
  /**
   * The partition list's last byte as the page took it in (resource timing's responseEnd): the page reads
   * the early request's body only once its JavaScript has hydrated, so this includes that wait.
   */
  listEnd: number
}

async function timeToRows(browser: Browser, base: string, cookie: { name: string; value: string }): Promise<Navigation> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.addCookies([{ ...cookie, url: base }])
  await context.addInitScript(ROWS_PROBE)
  const page = await context.newPage()
  try {
    await page.goto(`${base}/mirrors/bench`, { waitUntil: 'commit' })
    // A function, not a string: the page's CSP forbids eval, which a string predicate needs.
    await page.waitForFunction(
      () => {
        const probe = window as unknown as { __rowsVisibleAt?: number; __completeAt?: number }
        return probe.__rowsVisibleAt !== undefined && probe.__completeAt !== undefined
      },
      undefined,
      { timeout: 60_000 },
    )
    // A string: this file is typed for Node, whose globals have neither window nor navigation entries.
    // The frame that laid the rows out is on screen once painted: a first contentful paint after it is when the user sees them.
    const [rowsVisible, complete, responseStart, responseEnd, listEnd] = (await page.evaluate(
      `(() => { const entry = performance.getEntriesByType('navigation')[0]; const paint = performance.getEntriesByName('first-contentful-paint')[0]; const list = performance.getEntriesByType('resource').find((resource) => new URL(resource.name).pathname.endsWith('/mirrors/bench/partitions')); return [Math.max(window.__rowsVisibleAt, paint === undefined ? 0 : paint.startTime), window.__completeAt, entry.responseStart, entry.responseEnd, list === undefined ? NaN : list.responseEnd] })()`,
    )) as [number, number, number, number, number]
    return { rowsVisible, complete, responseStart, responseEnd, listEnd }
  } finally {
    await context.close()
  }
}

/** Main-thread task time over wall time, from Chrome's own counter (Performance.getMetrics TaskDuration). */
async function busyFractions(page: Page): Promise<number[]> {
  const session = await page.context().newCDPSession(page)
  await session.send('Performance.enable')
  const taskSeconds = async () => {
    const { metrics } = await session.send('Performance.getMetrics')
    return metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0
  }
  const fractions: number[] = []
  for (let window = 0; window < BUSY_WINDOWS; window++) {
    const busyBefore = await taskSeconds()
    const started = performance.now()
    await sleep(BUSY_WINDOW_MS)
    const busy = (await taskSeconds()) - busyBefore
    fractions.push(busy / ((performance.now() - started) / 1000))
  }
  return fractions
}

export async function benchUiMirror(): Promise<BenchResult[]> {
  if (!hasProductionBuild()) {
    console.log('skipped: no production build (.next/BUILD_ID); run `npx next build` first')
    return []
  }
  // BENCH_SERVER_IMPORT=<module>: loaded into the server's Node first (e.g. a profiler hook, for where a figure goes).
  const hook = process.env.BENCH_SERVER_IMPORT
  const server = await startServer(hook === undefined ? {} : { nodeArgs: ['--import', hook] })
  let browser: Browser | undefined
  try {
    const { topics, setupMs } = await setUpMirror(server.base, TOPICS)
    const partitions = TOPICS * PARTITIONS_PER_TOPIC
    const session = await fetch(`${server.base}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: OPERATOR_TOKEN }) })
    const setCookie = session.headers.get('set-cookie') ?? ''
    const [name, value] = setCookie.split(';')[0]!.split('=') as [string, string]
    if (!session.ok || !value) throw new Error(`sign-in failed: ${session.status}`)
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS })

    // One warm-up: the server's first render of a route loads its modules.
    await timeToRows(browser, server.base, { name, value })
    const navigations: Navigation[] = []
    for (let run = 0; run < NAVIGATIONS; run++) {
      await sleep(SETTLE_MS)
      navigations.push(await timeToRows(browser, server.base, { name, value }))
    }

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    await context.addCookies([{ name, value, url: server.base }])
    const page = await context.newPage()
    await page.goto(`${server.base}/mirrors/bench`)
    await page.locator('[data-partition]').first().waitFor({ state: 'visible', timeout: 60_000 })
    let producing = true
    let produced = 0
    const producer = (async () => {
      for (let i = 0; producing; i++) {
        const next = performance.now() + PRODUCE_EVERY_MS
        await call(server.base, 'POST', `/api/v1/clusters/source/topics/${topics[i % topics.length]}/records`, {
          partition: (i * 7) % PARTITIONS_PER_TOPIC,
          records: Array.from({ length: RECORDS_PER_POST }, (_, r) => ({ key: `k${r}`, value: `value ${i}-${r}` })),
        })
        produced += RECORDS_PER_POST
        await sleep(Math.max(0, next - performance.now()))
      }
    })()
    await sleep(WARMUP_MS)
    const busy = await busyFractions(page)
    producing = false
    await producer
    const rowsInDom = await page.locator('[data-partition]').count()
    await context.close()

    console.log(
      `  (setup: ${partitions.toLocaleString('en-US')} partitions mirrored in ${(setupMs / 1000).toFixed(1)} s; navigations (HTML first byte/last byte/rows visible/list read/whole list) ` +
        `${navigations.map((run) => [run.responseStart, run.responseEnd, run.rowsVisible, run.listEnd, run.complete].map((ms) => ms.toFixed(0)).join('/')).join(', ')} ms; ` +
        `busy ${busy.map((fraction) => `${(fraction * 100).toFixed(1)} %`).join(', ')} over ${BUSY_WINDOW_MS / 1000} s windows while ${produced} records were produced; ${rowsInDom} rows in the DOM)`,
    )
    return [
      { name: `mirror page (${partitions.toLocaleString('en-US')} partitions): navigation → rows visible, median`, value: median(navigations.map((run) => run.rowsVisible)), unit: 'ms', goal: '< 1,500 ms' },
      { name: 'mirror page: navigation → whole list in the table (sort and filter ready), median', value: median(navigations.map((run) => run.complete)), unit: 'ms' },
      { name: 'mirror page: main-thread busy per second while mirroring, median', value: median(busy) * 100, unit: '%', goal: '< 20 %' },
      { name: 'mirror page: table rows in the DOM', value: rowsInDom, unit: 'rows', baseline: { name: 'partitions', value: partitions }, ratio: rowsInDom / partitions },
    ]
  } catch (error) {
    throw new Error(`mirror page benchmark failed; the server's last errors:\n${server.errors()}`, { cause: error })
  } finally {
    await browser?.close()
    await server.close()
  }
}
