// `npm run bench -- lighthouse`: Lighthouse (mobile defaults: simulated slow 4G and a 4x slower CPU) against a
// production server that is already running, signed in as a viewer, on the pages issue #33 asks to score
// (`/`, a mirror page, a partition page, `/audit`). It builds and starts nothing: run `npx next build --webpack`,
// `npx tsc -p tsconfig.server.json` and `node dist/main.js` (e.g. with MIRRORBOARD_DEMO=1) first.
//
//   LIGHTHOUSE_BASE=http://127.0.0.1:3931 LIGHTHOUSE_TOKEN=mbv_… npm run bench -- lighthouse
//
// LIGHTHOUSE_PAGES: comma-separated paths (default: /, the first mirror, its first partition, /audit);
// LIGHTHOUSE_RUNS: runs per page (default 3, the median is printed); CHROME_PATH: the browser (/usr/bin/chromium);
// LIGHTHOUSE_REPORTS: a directory to keep each run's JSON report in (its trace-based diagnostics: bootup-time,
// mainthread-work-breakdown, long-tasks), for finding what blocks the main thread; with LIGHTHOUSE_TRACE=1 also
// each run's trace with V8's samples (`<name>-0.trace.json`), which scripts/bench/lighthouse-trace.ts splits into the
// main thread's long tasks and their functions (source-mapped with a `MIRRORBOARD_SOURCE_MAPS=1` build).
// The target: scripts/bench/lighthouse-server.sh starts a built production server in demo mode with a
// 2,000-partition mirror `big-2000` and prints LIGHTHOUSE_BASE, LIGHTHOUSE_TOKEN and LIGHTHOUSE_PAGES.
// Lighthouse is run through `npx -y lighthouse@12.2.3` (not a dependency of the project). The machine's load
// average is printed with each page: Lighthouse's simulated CPU multiplies the main-thread time it observes, so a
// busy machine lowers the scores.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { median, type BenchResult } from './result'

const run = promisify(execFile)
const LIGHTHOUSE = 'lighthouse@12.2.3'

interface Scores {
  performance: number
  accessibility: number
  bestPractices: number
  tbtMs: number
  lcpMs: number
  cls: number
}

async function signIn(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) })
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]
  if (!response.ok || cookie === undefined || !cookie.includes('=')) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`)
  return cookie
}

/** `/`, the first mirror, that mirror's first partition, `/audit`: what the server holds now. */
async function defaultPages(base: string, cookie: string): Promise<string[]> {
  const get = async (url: string) => {
    const response = await fetch(`${base}${url}`, { headers: { cookie } })
    if (!response.ok) throw new Error(`GET ${url}: ${response.status}`)
    return response.json() as Promise<unknown>
  }
  const { mirrors } = (await get('/api/v1/mirrors')) as { mirrors: Array<{ name: string }> }
  const mirror = mirrors[0]?.name
  if (mirror === undefined) return ['/', '/audit']
  const { partitions } = (await get(`/api/v1/mirrors/${encodeURIComponent(mirror)}/partitions`)) as { partitions: Array<{ topic: string; partition: number }> }
  const first = partitions[0]
  const pages = ['/', `/mirrors/${encodeURIComponent(mirror)}`]
  if (first !== undefined) pages.push(`/mirrors/${encodeURIComponent(mirror)}/partitions/${encodeURIComponent(first.topic)}/${first.partition}`)
  pages.push('/audit')
  return pages
}

async function lighthouse(url: string, cookie: string, directory: string, name: string): Promise<Scores> {
  const output = path.join(directory, `${name}.json`)
  await run(
    'npx',
    [
      '-y',
      LIGHTHOUSE,
      url,
      `--extra-headers=${JSON.stringify({ Cookie: cookie })}`,
      '--chrome-flags=--headless=new --no-sandbox',
      '--only-categories=performance,accessibility,best-practices',
      '--output=json',
      `--output-path=${output}`,
      '--quiet',
      // The saved trace with V8's samples, for scripts/bench/lighthouse-trace.ts (the sampling adds some overhead).
      ...(process.env.LIGHTHOUSE_TRACE === '1' ? ['--save-assets', '--additional-trace-categories=disabled-by-default-v8.cpu_profiler'] : []),
    ],
    { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' }, maxBuffer: 64 * 1024 * 1024 },
  )
  const report = JSON.parse(await readFile(output, 'utf8')) as {
    categories: Record<string, { score: number | null }>
    audits: Record<string, { numericValue?: number }>
    runtimeError?: { message: string }
  }
  if (report.runtimeError !== undefined) throw new Error(`lighthouse on ${url}: ${report.runtimeError.message}`)
  const score = (category: string) => report.categories[category]?.score ?? NaN
  const audit = (id: string) => report.audits[id]?.numericValue ?? NaN
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    tbtMs: audit('total-blocking-time'),
    lcpMs: audit('largest-contentful-paint'),
    cls: audit('cumulative-layout-shift'),
  }
}

export async function benchLighthouse(): Promise<BenchResult[]> {
  const base = process.env.LIGHTHOUSE_BASE
  const token = process.env.LIGHTHOUSE_TOKEN
  if (base === undefined || token === undefined) {
    console.log('skipped: set LIGHTHOUSE_BASE (a running production server) and LIGHTHOUSE_TOKEN (a viewer token, mbv_…)')
    return []
  }
  const runs = Number(process.env.LIGHTHOUSE_RUNS ?? 3)
  const cookie = await signIn(base, token)
  const pages = process.env.LIGHTHOUSE_PAGES?.split(',').map((page) => page.trim()).filter((page) => page !== '') ?? (await defaultPages(base, cookie))
  const kept = process.env.LIGHTHOUSE_REPORTS
  const directory = kept ?? (await mkdtemp(path.join(os.tmpdir(), 'bench-lighthouse-')))
  if (kept !== undefined) await mkdir(kept, { recursive: true })
  const results: BenchResult[] = []
  try {
    for (const page of pages) {
      const scores: Scores[] = []
      const loads: number[] = []
      for (let attempt = 0; attempt < runs; attempt++) {
        loads.push(os.loadavg()[0]!)
        scores.push(await lighthouse(`${base}${page}`, cookie, directory, `${page.replace(/[^a-z0-9]+/gi, '_')}-${attempt + 1}`))
      }
      const of = (pick: (scores: Scores) => number) => median(scores.map(pick))
      console.log(
        `${page}: performance ${scores.map((s) => s.performance.toFixed(2)).join(' ')}, TBT ${scores.map((s) => Math.round(s.tbtMs)).join(' ')} ms, LCP ${scores.map((s) => Math.round(s.lcpMs)).join(' ')} ms, CLS ${scores.map((s) => s.cls.toFixed(3)).join(' ')}; load average ${loads.map((load) => load.toFixed(1)).join(' ')}`,
      )
      results.push(
        { name: `${page} performance (median of ${runs})`, value: of((s) => s.performance), unit: 'score', goal: '≥ 0.9' },
        { name: `${page} accessibility`, value: of((s) => s.accessibility), unit: 'score', goal: '≥ 0.9' },
        { name: `${page} best practices`, value: of((s) => s.bestPractices), unit: 'score', goal: '≥ 0.9' },
        { name: `${page} total blocking time`, value: of((s) => s.tbtMs), unit: 'ms' },
        { name: `${page} largest contentful paint`, value: of((s) => s.lcpMs), unit: 'ms' },
        { name: `${page} cumulative layout shift`, value: of((s) => s.cls), unit: '' },
      )
    }
  } finally {
    if (kept === undefined) await rm(directory, { recursive: true, force: true })
  }
  return results
}
