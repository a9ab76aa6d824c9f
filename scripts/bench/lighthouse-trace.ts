// What Lighthouse's long tasks spend their time on: reads a trace Lighthouse saved (`LIGHTHOUSE_TRACE=1` in
// scripts/bench/lighthouse.ts, or `lighthouse … --save-assets --additional-trace-categories=disabled-by-default-v8.cpu_profiler`)
// and prints, for each of the page's main-thread tasks longer than a threshold, its trace events by kind (layout,
// style, script…) and the V8 samples inside it by function (self time), mapped through the build's source maps when
// the build has them (`MIRRORBOARD_SOURCE_MAPS=1 npx next build --webpack`), plus the nearest frame of our own code
// under each sample ("whose code asked for it"). Times are what the unthrottled run observed: Lighthouse's
// simulation multiplies them by about 4.
//
//   node --import tsx scripts/bench/lighthouse-trace.ts <report-0.trace.json> [--min-ms 50] [--top 12] [--next .next]
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
// source-map-js: postcss's (and so Next's) dependency, in every install of the project; synchronous, unlike source-map 0.7.
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js'

interface TraceEvent {
  name: string
  ph: string
  ts: number
  dur?: number
  pid: number
  tid: number
  id?: string
  args?: { name?: string; data?: ProfileData & { startTime?: number } }
}
interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  parent?: number
}
interface ProfileData {
  cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }
  timeDeltas?: number[]
}

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const index = args.indexOf(name)
  return index >= 0 ? (args[index + 1] ?? fallback) : fallback
}
const file = args.find((arg, index) => !arg.startsWith('--') && (index === 0 || !args[index - 1]!.startsWith('--')))
if (file === undefined) {
  console.error('usage: lighthouse-trace.ts <trace.json> [--min-ms 50] [--top 12] [--next .next]')
  process.exit(2)
}
const minMs = Number(option('--min-ms', '50'))
const top = Number(option('--top', '12'))
const nextDir = option('--next', '.next')

const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[]
const events = Array.isArray(raw) ? raw : (raw.traceEvents ?? [])

// The page's main thread: the renderer thread named CrRendererMain with the most RunTask time.
const mainThreads = new Set(events.filter((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain').map((event) => `${event.pid}:${event.tid}`))
const busy = new Map<string, number>()
for (const event of events) {
  const key = `${event.pid}:${event.tid}`
  if (event.name === 'RunTask' && mainThreads.has(key)) busy.set(key, (busy.get(key) ?? 0) + (event.dur ?? 0))
}
const main = [...busy.entries()].sort((a, b) => b[1] - a[1])[0]?.[0]
if (main === undefined) throw new Error('no renderer main thread with tasks in this trace')
const [mainPid, mainTid] = main.split(':').map(Number) as [number, number]
const onMain = events.filter((event) => event.pid === mainPid && event.tid === mainTid)
const navigation = events.find((event) => event.name === 'navigationStart' && event.pid === mainPid)?.ts ?? onMain.find((event) => event.name === 'RunTask')?.ts ?? 0

// V8 samples of the main renderer: the Profile event's start, then ProfileChunks with nodes, samples and deltas.
const nodes = new Map<string, ProfileNode>()
const samples: Array<{ ts: number; node: string; weight: number }> = []
const clocks = new Map<string, number>()
for (const event of events) {
  if (event.pid !== mainPid) continue
  if (event.name === 'Profile' && event.id !== undefined) clocks.set(event.id, event.args?.data?.startTime ?? event.ts)
  if (event.name !== 'ProfileChunk' || event.id === undefined) continue
  const data = event.args?.data
  for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(`${event.id}:${node.id}`, node)
  const ids = data?.cpuProfile?.samples ?? []
  const deltas = data?.timeDeltas ?? []
  let clock = clocks.get(event.id) ?? event.ts
  for (let index = 0; index < ids.length; index++) {
    clock += deltas[index] ?? 0
    samples.push({ ts: clock, node: `${event.id}:${ids[index]}`, weight: 0 })
  }
  clocks.set(event.id, clock)
}
samples.sort((a, b) => a.ts - b.ts)
for (let index = 0; index < samples.length; index++) samples[index]!.weight = Math.min((samples[index + 1]?.ts ?? samples[index]!.ts) - samples[index]!.ts, 10_000)
const profileOf = (key: string) => key.slice(0, key.indexOf(':'))

// Source maps: a chunk's URL path under /_next/ is the build's file under .next/ with `.map` added.
const maps = new Map<string, SourceMapConsumer | null>()
function mapFrame(given: Partial<CallFrame>): { name: string; ours: boolean } {
  // Chunks may leave out a frame's empty fields.
  const frame: CallFrame = { functionName: given.functionName ?? '', url: given.url ?? '', lineNumber: given.lineNumber ?? -1, columnNumber: given.columnNumber ?? -1 }
  const where = frame.url === '' ? '(native)' : frame.url.replace(/^https?:\/\/[^/]+/, '')
  const plain = { name: `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`, ours: false }
  const match = /\/_next\/(static\/.+\.js)$/.exec(where)
  if (match === null || frame.lineNumber < 0) return frame.url === '' ? { name: frame.functionName || '(program)', ours: false } : plain
  if (!maps.has(match[1]!)) {
    const mapFile = path.join(nextDir, `${match[1]!}.map`)
    maps.set(match[1]!, existsSync(mapFile) ? new SourceMapConsumer(JSON.parse(readFileSync(mapFile, 'utf8')) as RawSourceMap) : null)
  }
  const consumer = maps.get(match[1]!)
  if (!consumer) return plain
  const original = consumer.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber })
  if (original.source === null) return plain
  const source = original.source.replace(/^webpack:\/\/[^/]*\//, '').replace(/^\.\//, '')
  const ours = !source.includes('node_modules') && /^(app|components|lib)\//.test(source)
  return { name: `${frame.functionName || original.name || '(anonymous)'} ${source}:${original.line}`, ours }
}
const frameNames = new Map<string, { name: string; ours: boolean }>()
const frameOf = (key: string) => {
  let named = frameNames.get(key)
  if (named === undefined) {
    named = mapFrame(nodes.get(key)!.callFrame)
    frameNames.set(key, named)
  }
  return named
}
function nearestOurs(key: string): string | null {
  for (let current: string | undefined = key; current !== undefined; ) {
    const node = nodes.get(current)
    if (node === undefined) return null
    const named = frameOf(current)
    if (named.ours) return named.name
    current = node.parent === undefined ? undefined : `${profileOf(current)}:${node.parent}`
  }
  return null
}

const ms = (microseconds: number) => `${(microseconds / 1000).toFixed(0)} ms`
const sorted = (totals: Map<string, number>) => [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
const add = (totals: Map<string, number>, key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value)

const tasks = onMain.filter((event) => event.name === 'RunTask' && (event.dur ?? 0) >= minMs * 1000).sort((a, b) => a.ts - b.ts)
const traceEnd = Math.max(...onMain.map((event) => event.ts + (event.dur ?? 0)))
console.log(`${file}: main thread ${main}, ${samples.length} V8 samples, ${tasks.length} tasks ≥ ${minMs} ms, trace ${ms(traceEnd - navigation)} after navigation`)
const kinds = new Set(['Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize', 'ParseHTML', 'EvaluateScript', 'v8.compile', 'v8.compileModule', 'FunctionCall', 'TimerFire', 'EventDispatch', 'FireAnimationFrame', 'v8.parseOnBackground', 'ParseAuthorStyleSheet', 'MajorGC', 'MinorGC', 'V8.GC_MC_BACKGROUND_EVACUATE_COPY', 'HitTest', 'ScheduleStyleRecalculation', 'InvalidateLayout', 'v8.run', 'XHRReadyStateChange', 'RunMicrotasks', 'ResourceReceivedData'])
for (const task of tasks) {
  const end = task.ts + task.dur!
  const inside = onMain.filter((event) => event.ts >= task.ts && event.ts < end && event !== task)
  const byKind = new Map<string, number>()
  // Only the outermost event of each kind counts (a FunctionCall inside a FunctionCall is not twice the time).
  const open = new Map<string, number>()
  for (const event of inside) {
    if (event.ph !== 'X' || !kinds.has(event.name)) continue
    if ((open.get(event.name) ?? -1) > event.ts) continue
    open.set(event.name, event.ts + (event.dur ?? 0))
    add(byKind, event.name, event.dur ?? 0)
  }
  const self = new Map<string, number>()
  const ours = new Map<string, number>()
  let sampled = 0
  for (const sample of samples) {
    if (sample.ts < task.ts || sample.ts >= end) continue
    const node = nodes.get(sample.node)
    if (node === undefined) continue
    sampled += sample.weight
    add(self, frameOf(sample.node).name, sample.weight)
    const mine = nearestOurs(sample.node)
    if (mine !== null) add(ours, mine, sample.weight)
  }
  console.log(`\n== task at ${ms(task.ts - navigation)} after navigation: ${ms(task.dur!)} (${ms(sampled)} sampled)`)
  console.log(`   events: ${sorted(byKind).map(([kind, time]) => `${kind} ${ms(time)}`).join(', ')}`)
  // Lighthouse traces with invalidation tracking on: each DOM node added, removed or restyled records an event with
  // its JavaScript stack, so the task's cost grows with the DOM it changes far more than in a user's browser.
  const invalidations = inside.filter((event) => event.name.endsWith('InvalidationTracking')).length
  if (invalidations > 0) console.log(`   invalidations recorded (each with a stack): ${invalidations}`)
  console.log('   self time by function:')
  for (const [name, time] of sorted(self)) console.log(`     ${ms(time).padStart(7)}  ${name}`)
  if (ours.size > 0) {
    console.log('   by the nearest frame of our code (app/, components/, lib/):')
    for (const [name, time] of sorted(ours)) console.log(`     ${ms(time).padStart(7)}  ${name}`)
  }
}
