// UI benchmark (UI.md §4): the overview with 50 clusters and 100 mirrors, from navigation to the topology
// graph (every cluster box and mirror edge drawn) and the partition counts on screen, in Debian's Chromium
// against the production server. Baseline in the same run: the sign-in page, navigation to its form.
import { performance } from 'node:perf_hooks'
import { chromium, type Browser, type Page } from 'playwright-core'
import { call, hasProductionBuild, startServer } from './api'
import { median, type BenchResult } from './result'

const CLUSTERS = 50
const MIRRORS = 100
const RUNS = 7
/** How long the steady-state figure watches the open overview while every mirror reports lag each second. */
const STEADY_WINDOW_MS = 10_000
/** The viewer token startServer gives the server. */
const VIEWER_TOKEN = 'bench-viewer-token'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Mirror i copies its own topic from cluster i mod 50 to another cluster, so chains, fan-in and pairs all occur. */
async function setUpTopology(base: string): Promise<number> {
  const started = performance.now()
  const clusters = Array.from({ length: CLUSTERS }, (_, index) => `cluster-${String(index).padStart(2, '0')}`)
  for (const name of clusters) await call(base, 'POST', '/api/v1/clusters', { name, kind: 'embedded', brokers: 1 })
  for (let index = 0; index < MIRRORS; index++) {
    const source = clusters[index % CLUSTERS]!
    const destination = clusters[(index * 7 + 1 + Math.floor(index / CLUSTERS)) % CLUSTERS]!
    const target = destination === source ? clusters[(index + 1) % CLUSTERS]! : destination
    const topic = `topic-${index}`
    await call(base, 'POST', `/api/v1/clusters/${source}/topics`, { name: topic, partitions: 1 })
    await call(base, 'POST', '/api/v1/mirrors', { name: `mirror-${String(index).padStart(3, '0')}`, sourceCluster: source, destinationCluster: target, topics: [topic] })
  }
  const deadline = Date.now() + 5 * 60_000
  for (;;) {
    const { mirrors } = (await call(base, 'GET', '/api/v1/mirrors')) as { mirrors: Array<{ partitionsByState: Record<string, number> }> }
    if (mirrors.every((mirror) => (mirror.partitionsByState.MIRRORING ?? 0) === 1)) break
    if (Date.now() > deadline) throw new Error('not every mirror reached MIRRORING within 5 min')
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  return performance.now() - started
}

/**
 * Installed in every page before its own scripts: from the first frame on, checks the readiness expression
 * named by the URL's `#bench-ready=` on each animation frame and keeps the frame's time once it holds. So
 * the figure is the frame the user first sees it in, even while the page's scripts hold the main thread
 * (a poller injected after navigation would only start once they let go). It stops once it holds.
 */
function readyProbe(checks: Record<string, string>): string {
  const entries = Object.entries(checks).map(([name, check]) => `${JSON.stringify(name)}: () => ${check}`)
  return `(() => {
    const name = new URLSearchParams(location.hash.slice(1)).get('bench-ready')
    const check = ({ ${entries.join(', ')} })[name]
    if (check === undefined) return
    const frame = (at) => {
      if (check()) window.__benchReadyAt = at
      else requestAnimationFrame(frame)
    }
    requestAnimationFrame(frame)
  })()`
}

/** Milliseconds from the navigation's start to the paint that shows what the named check looks for, measured in the page. */
async function timeToReady(page: Page, url: string, ready: string, timings?: string[]): Promise<number> {
  await page.goto('about:blank')
  await page.goto(`${url}#bench-ready=${ready}`, { waitUntil: 'commit' })
  await page.waitForFunction('window.__benchReadyAt !== undefined', undefined, { timeout: 30_000 })
  const laidOutAt = (await page.evaluate('window.__benchReadyAt')) as number
  // The frame that laid it out is on screen once painted: a first contentful paint after it is when the user sees it.
  const firstPaint = (await page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0`)) as number
  const readyAt = Math.max(laidOutAt, firstPaint)
  if (timings !== undefined) {
    // A string: this file is typed for Node, whose performance has no navigation entries.
    const navigation = (await page.evaluate(
      `(() => { const entry = performance.getEntriesByType('navigation')[0]; return entry === undefined ? null : [entry.responseStart, entry.responseEnd, entry.domContentLoadedEventEnd] })()`,
    )) as [number, number, number] | null
    if (navigation !== null) timings.push(`first byte ${Math.round(navigation[0])}, HTML ${Math.round(navigation[1])}, DOM ready ${Math.round(navigation[2])}, laid out ${Math.round(laidOutAt)}, first paint ${Math.round(firstPaint)}`)
  }
  return readyAt
}

/** Every cluster box and mirror curve laid out with a size (the SVG of components/topology/topology-graph.tsx). */
const OVERVIEW_READY = `(() => {
  const drawn = (element) => { const box = element.getBoundingClientRect(); return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden' }
  const nodes = document.querySelectorAll('[data-topology-node]')
  if (nodes.length < ${CLUSTERS}) return false
  for (const node of nodes) if (!drawn(node)) return false
  const edges = document.querySelectorAll('[data-topology-edge]')
  if (edges.length < ${MIRRORS}) return false
  for (const edge of edges) if (!drawn(edge)) return false
  return document.querySelector('[aria-label="Partitions per state"]') !== null
})()`

/** Main-thread busy share while the page sits open: Chrome's TaskDuration over a window, per second of it. */
async function busyShare(page: Page, windowMs: number): Promise<number> {
  const session = await page.context().newCDPSession(page)
  await session.send('Performance.enable')
  const taskSeconds = async () => ((await session.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0)
  const before = await taskSeconds()
  const started = performance.now()
  await new Promise((resolve) => setTimeout(resolve, windowMs))
  const busy = (await taskSeconds()) - before
  await session.detach()
  return busy / ((performance.now() - started) / 1000)
}

const LOGIN_READY = `document.querySelector('form input[type="password"]') !== null && document.querySelector('form button[type="submit"]') !== null`

const PROBE = readyProbe({ overview: OVERVIEW_READY, overviewAfterChange: OVERVIEW_READY.replace(`< ${MIRRORS}`, `< ${MIRRORS + 1}`), login: LOGIN_READY })

export async function benchUiOverview(): Promise<BenchResult[]> {
  if (!hasProductionBuild()) throw new Error('the overview benchmark needs the production build (.next/BUILD_ID is missing): run `npx next build` first')
  const server = await startServer()
  let browser: Browser | undefined
  try {
    const setupMs = await setUpTopology(server.base)
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS })
    // bypassCSP: the readiness checks are strings, which the pages' CSP (no 'unsafe-eval') refuses to evaluate.
    const loginContext = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true })
    await loginContext.addInitScript(PROBE)
    const loginPage = await loginContext.newPage()
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: server.base, bypassCSP: true })
    await context.addInitScript(PROBE)
    const signIn = await context.request.post(`${server.base}/api/v1/session`, { data: { token: VIEWER_TOKEN } })
    if (!signIn.ok()) throw new Error(`sign-in answered ${signIn.status()}`)
    const page = await context.newPage()
    // One warm-up of each: the server compiles nothing, but its first render of a route loads its modules.
    await timeToReady(page, `${server.base}/`, 'overview')
    await timeToReady(loginPage, `${server.base}/login`, 'login')
    const overview: number[] = []
    const login: number[] = []
    const timings: string[] = []
    for (let run = 0; run < RUNS; run++) {
      overview.push(await timeToReady(page, `${server.base}/`, 'overview', timings))
      login.push(await timeToReady(loginPage, `${server.base}/login`, 'login'))
    }
    // Left open, the overview refetches the mirror list on lag events (at most once a second) and relabels the graph.
    await timeToReady(page, `${server.base}/`, 'overview')
    const steady = await busyShare(page, STEADY_WINDOW_MS)
    // A new mirror changes the shape: the next visit pays the layout once (server/pages/topology-layout.ts).
    await call(server.base, 'POST', '/api/v1/clusters/cluster-00/topics', { name: 'topic-extra', partitions: 1 })
    await call(server.base, 'POST', '/api/v1/mirrors', { name: 'mirror-extra', sourceCluster: 'cluster-00', destinationCluster: 'cluster-25', topics: ['topic-extra'] })
    const afterChange = await timeToReady(page, `${server.base}/`, 'overviewAfterChange')
    console.log(`  (setup: ${CLUSTERS} clusters, ${MIRRORS} mirrors in ${(setupMs / 1000).toFixed(1)} s; overview runs ${overview.map((ms) => Math.round(ms)).join(', ')} ms)`)
    for (const line of timings) console.log(`    ${line} ms`)
    const value = median(overview)
    const baseline = median(login)
    return [
      {
        name: `overview first render (${CLUSTERS} clusters, ${MIRRORS} mirrors)`,
        value,
        unit: 'ms',
        baseline: { name: 'sign-in page', value: baseline },
        ratio: value / baseline,
        goal: '< 1,000 ms',
      },
      { name: 'overview first render after a new mirror (layout not cached)', value: afterChange, unit: 'ms' },
      { name: `overview left open: main-thread busy (${STEADY_WINDOW_MS / 1000} s window)`, value: steady * 100, unit: '%' },
    ]
  } catch (error) {
    throw new Error(`overview benchmark failed; the server's last errors:\n${server.errors()}`, { cause: error })
  } finally {
    await browser?.close()
    await server.close()
  }
}
