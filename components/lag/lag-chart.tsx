'use client'
// Over 400 lines on purpose: one uPlot chart (offset and time lag, the outage hatching, the RPO objective lines and
// band) whose series, hooks and legend must agree; split, the legend would drift from what the canvas draws.

import { startTransition, useEffect, useMemo, useRef, useState } from 'react'
import type uPlot from 'uplot'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useLag } from '@/components/data/use-lag'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { clockTime, formatCount, formatDuration, formatInteger } from '@/lib/ui/format'
import { LAG_RANGES, aggregateLag, appendLagSample, describeLagChart, lagTrend, type LagChartData, type LagRange } from '@/lib/ui/lag-series'
import type { MirrorSnapshot } from '@/lib/ui/mirror-snapshot'
import { LagTrendBadge } from './lag-trend-badge'
import { UPlotChart } from './uplot-chart'

/** Up to this many series per group: the total plus seven topics (the rest folded into "other topics"). */
const MAX_GROUPS = 8
const CHART_HEIGHT = 220

const RANGES = Object.keys(LAG_RANGES) as LagRange[]

// The colours, read once per theme (the <html> class): getComputedStyle after the page's DOM changed forces a style
// recalculation, and each draw read a colour per series, axis and band, a live chart once a second.
const colours = new Map<string, string>()
let coloursTheme: string | null = null

function cssVariable(name: string): string {
  const theme = document.documentElement.className
  if (theme !== coloursTheme) {
    colours.clear()
    coloursTheme = theme
  }
  let colour = colours.get(name)
  if (colour === undefined) {
    colour = getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#64748b'
    colours.set(name, colour)
  }
  return colour
}

function colourOf(groupIndex: number): string {
  return groupIndex === 0 ? '--chart-total' : `--chart-series-${((groupIndex - 1) % 8) + 1}`
}

/** Offset lags first (total, then topics), then time lags in the same order: `[x, ...offsets, ...times]`. */
function toAligned(data: LagChartData): uPlot.AlignedData {
  const groups = [data.total, ...data.groups]
  return [data.times.map((time) => time / 1000), ...groups.map((group) => group.offsetLag), ...groups.map((group) => group.timeLagMs)]
}

/**
 * Tick steps of the time axis, in seconds. uPlot's own go from 1 to 5 minutes, so a phone's five-minute chart
 * (about 170 px wide) had room for one tick only; with 2 minutes it has two or three.
 */
const TIME_INCREMENTS_SECONDS = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]

/** Spans of time when the lag was not known (a source silent), ms; `to` null: still so. */
type UnknownSpans = ReadonlyArray<{ readonly from: number; readonly to: number | null }>

/** A diagonal hatch in the danger tone, made once per theme colour: the spans read as "not known" without colour too. */
function hatchPattern(ctx: CanvasRenderingContext2D, colour: string): CanvasPattern | null {
  const tile = document.createElement('canvas')
  tile.width = 8
  tile.height = 8
  const pen = tile.getContext('2d')
  if (pen === null) return null
  pen.strokeStyle = colour
  pen.globalAlpha = 0.35
  pen.lineWidth = 1.5
  pen.beginPath()
  pen.moveTo(0, 8)
  pen.lineTo(8, 0)
  pen.moveTo(-2, 2)
  pen.lineTo(2, -2)
  pen.moveTo(6, 10)
  pen.lineTo(10, 6)
  pen.stroke()
  return ctx.createPattern(tile, 'repeat')
}

/** Draws the hatched bands under the series: the outage is where the figures are lower bounds. */
function drawUnknownSpans(u: uPlot, spans: UnknownSpans): void {
  if (spans.length === 0) return
  const { ctx, bbox } = u
  const pattern = hatchPattern(ctx, cssVariable('--tone-danger'))
  if (pattern === null) return
  const [minX, maxX] = [u.scales.x?.min, u.scales.x?.max]
  if (minX === undefined || maxX === undefined || minX === null || maxX === null) return
  ctx.save()
  ctx.fillStyle = pattern
  for (const span of spans) {
    const from = Math.max(span.from / 1000, minX)
    const to = Math.min(span.to === null ? maxX : span.to / 1000, maxX)
    if (to <= from) continue
    const left = u.valToPos(from, 'x', true)
    const right = u.valToPos(to, 'x', true)
    ctx.fillRect(left, bbox.top, Math.max(2, right - left), bbox.height)
  }
  ctx.restore()
}

/** The RPO objectives the chart draws: seconds on the time-lag axis, records on the offset-lag axis; null without one. */
interface ChartObjectives {
  readonly timeMs: number | null
  readonly records: number | null
}

const BAND_ALPHA = 0.1

/**
 * The time-lag objective's breach band, under the grid and the series: the plot above the rpoSeconds line is
 * where the time lag breaches it, shaded in the danger tone so a line running into it reads as a breach.
 */
function drawObjectiveBand(u: uPlot, objectiveMs: number): void {
  const { ctx, bbox } = u
  const y = Math.round(u.valToPos(objectiveMs, 'ms', true))
  if (y <= bbox.top) return
  ctx.save()
  ctx.fillStyle = cssVariable('--tone-danger')
  ctx.globalAlpha = BAND_ALPHA
  ctx.fillRect(bbox.left, bbox.top, bbox.width, Math.min(y, bbox.top + bbox.height) - bbox.top)
  ctx.restore()
}

/**
 * An objective as a line across its axis, labelled at its end of the chart (time on the right, by its axis;
 * records on the left, by theirs), so each lag reads against its own objective. The time label sits above its
 * line, the records label below its own unless that would cross the time axis: two lines drawn at the same
 * height on a phone's narrow chart keep their labels apart.
 */
function drawObjectiveLine(u: uPlot, value: number, scale: 'ms' | 'records', label: string): void {
  const { ctx, bbox } = u
  const y = Math.round(u.valToPos(value, scale, true)) + 0.5
  if (y < bbox.top || y > bbox.top + bbox.height) return
  const colour = cssVariable('--tone-danger')
  const ratio = window.devicePixelRatio || 1
  ctx.save()
  ctx.strokeStyle = colour
  ctx.lineWidth = 1.5 * ratio
  ctx.setLineDash(scale === 'ms' ? [2 * ratio, 3 * ratio] : [8 * ratio, 3 * ratio, 2 * ratio, 3 * ratio])
  ctx.beginPath()
  ctx.moveTo(bbox.left, y)
  ctx.lineTo(bbox.left + bbox.width, y)
  ctx.stroke()
  ctx.setLineDash([])
  ctx.fillStyle = colour
  ctx.font = `${11 * ratio}px ui-sans-serif, system-ui, sans-serif`
  ctx.textAlign = scale === 'ms' ? 'right' : 'left'
  const below = scale === 'records' && y + 15 * ratio <= bbox.top + bbox.height
  ctx.textBaseline = below ? 'top' : 'bottom'
  ctx.fillText(label, scale === 'ms' ? bbox.left + bbox.width - 4 * ratio : bbox.left + 4 * ratio, below ? y + 3 * ratio : y - 2 * ratio)
  ctx.restore()
}

function drawObjectives(u: uPlot, objectives: ChartObjectives): void {
  if (objectives.timeMs !== null) drawObjectiveLine(u, objectives.timeMs, 'ms', `RPO ${formatDuration(objectives.timeMs)}`)
  if (objectives.records !== null) drawObjectiveLine(u, objectives.records, 'records', `RPO ${formatInteger(objectives.records)} ${objectives.records === 1 ? 'record' : 'records'}`)
}

/** Holds the spans the draw hook reads: the chart outlives the renders that change them. */
class SpanBox {
  private spans: UnknownSpans = []
  set(spans: UnknownSpans): void {
    this.spans = spans
  }
  get current(): UnknownSpans {
    return this.spans
  }
}

function chartOptions(labels: readonly string[], range: LagRange, spans: SpanBox, objectives: ChartObjectives): Omit<uPlot.Options, 'width' | 'height'> {
  // Clock times in UTC like the rest of the app; seconds only where the range is short enough to need them.
  const tick = (seconds: number) => (range === '5m' ? clockTime(seconds * 1000) : clockTime(seconds * 1000).slice(0, 5))
  const stroke = (name: string) => () => cssVariable(name)
  const axis = { stroke: stroke('--chart-axis'), grid: { stroke: stroke('--chart-grid'), width: 1 }, ticks: { stroke: stroke('--chart-grid'), width: 1 } }
  const series: uPlot.Series[] = [{}]
  labels.forEach((label, index) =>
    series.push({ label: `${label} offset lag`, scale: 'records', stroke: stroke(colourOf(index)), width: index === 0 ? 2.5 : 1.5, spanGaps: false, points: { show: false } }),
  )
  labels.forEach((label, index) =>
    series.push({ label: `${label} time lag`, scale: 'ms', stroke: stroke(colourOf(index)), width: index === 0 ? 2 : 1.25, dash: [6, 4], spanGaps: false, points: { show: false } }),
  )
  return {
    series,
    hooks: {
      drawClear: [
        (u) => {
          if (objectives.timeMs !== null) drawObjectiveBand(u, objectives.timeMs)
          drawUnknownSpans(u, spans.current)
        },
      ],
      draw: [(u) => drawObjectives(u, objectives)],
    },
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    scales: {
      x: { time: true },
      // The objectives stay in view: each lag reads against its own, however far below it runs.
      records: { range: (_u, _min, max) => { const top = Math.max(max, objectives.records ?? 0); return [0, top > 0 ? top * 1.1 : 10] } },
      // Half the objective again above it: a time lag under the objective still shows the breach band above it.
      ms: { range: (_u, _min, max) => { const top = Math.max(max * 1.1, (objectives.timeMs ?? 0) * 1.5); return [0, top > 0 ? top : 1000] } },
    },
    axes: [
      { ...axis, values: (_u, splits) => splits.map(tick), space: 60, incrs: TIME_INCREMENTS_SECONDS },
      { ...axis, scale: 'records', label: 'offset lag (records)', labelSize: 18, size: 56, values: (_u, splits) => splits.map((value) => formatCount(value)) },
      { ...axis, scale: 'ms', side: 1, label: 'time lag', labelSize: 18, size: 64, grid: { show: false }, values: (_u, splits) => splits.map((value) => formatDuration(value)) },
    ],
  }
}

/**
 * The lag chart: total and per-topic offset and time lag over the range, live-extended from the store. While a
 * source is silent (`snapshot.lagUnknown`) the trend says "lag unknown: source unreachable", the summary
 * never reads "caught up", and the outage is hatched over the chart (the spans the lag answer gives, and the
 * current one from the snapshot until the answer is read again).
 */
export function LagChart({
  mirror,
  store,
  ready = true,
  snapshot = null,
  rpoSeconds = null,
  rpoRecords = null,
}: {
  mirror: string
  store: MirrorPartitionStore
  ready?: boolean
  snapshot?: MirrorSnapshot | null
  rpoSeconds?: number | null
  rpoRecords?: number | null
}) {
  const lagUnknown = snapshot?.lagUnknown ?? null
  const [range, setRange] = useState<LagRange>('5m')
  const lag = useLag(mirror, range, ready)
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set())
  const [cursor, setCursor] = useState<number | null>(null)
  const [instance, setInstance] = useState<uPlot | null>(null)

  const answer = lag.data
  // The figures became known again, or stopped being known: the history is read again for its spans and points.
  const unknownNow = lagUnknown !== null
  const refetchLag = lag.refetch
  // A mirror with no fetch answered yet has no outage to hatch and no figure to bound: its lag is just not known yet.
  const boundedNow = unknownNow && lagUnknown.cause !== 'firstFetchPending'
  const wasUnknown = useRef(unknownNow)
  useEffect(() => {
    if (wasUnknown.current === unknownNow) return
    wasUnknown.current = unknownNow
    if (ready) void refetchLag()
  }, [unknownNow, ready, refetchLag])
  const spans = useMemo<UnknownSpans>(() => {
    const answered = answer?.lagUnknown ?? []
    const open = answered.some((span) => span.to === null)
    if (!boundedNow || open) return answered
    return [...answered, { from: snapshot?.lag.asOf ?? snapshot?.at ?? 0, to: null }]
  }, [answer, boundedNow, snapshot?.lag.asOf, snapshot?.at])
  // The chart's draw hook reads the spans from this box (the chart is created once per layout, not per tick).
  const [spansBox] = useState(() => new SpanBox())
  // The history as the server answered it; live samples extend a copy of it until the next answer.
  const base = useMemo(() => {
    if (answer === undefined) return null
    const { rangeMs, stepMs } = LAG_RANGES[range]
    return aggregateLag(answer.topics ?? answer.series, { stepMs, rangeMs, from: answer.from, to: answer.to, maxGroups: MAX_GROUPS - 1 })
  }, [answer, range])
  const [extended, setExtended] = useState<{ base: LagChartData; data: LagChartData } | null>(null)
  const baseRef = useRef(base)
  useEffect(() => {
    baseRef.current = base
  }, [base])
  useEffect(
    () =>
      store.subscribeLag((at, sample) =>
        // A transition, as the page's other live figures: the chart's re-render yields to the browser.
        startTransition(() =>
          setExtended((current) => {
            const origin = baseRef.current
            if (origin === null) return current
            return { base: origin, data: appendLagSample(current !== null && current.base === origin ? current.data : origin, at, sample) }
          }),
        ),
      ),
    [store],
  )
  const data = base === null ? null : extended !== null && extended.base === base ? extended.data : base
  const labels = useMemo(() => (data === null ? [] : ['total', ...data.groups.map((group) => group.label)]), [data])
  const objectiveMs = rpoSeconds === null ? null : rpoSeconds * 1000
  const layout = `${range}\u0000${objectiveMs ?? ''}\u0000${rpoRecords ?? ''}\u0000${labels.join('\u0000')}`
  // Rebuilt only when the series change, so the chart is not re-created on every tick.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const options = useMemo(() => chartOptions(labels, range, spansBox, { timeMs: objectiveMs, records: rpoRecords }), [layout])
  const aligned = useMemo(() => (data === null ? null : toAligned(data)), [data])
  const trend = useMemo(() => (data === null ? null : lagTrend(data.times, data.total.offsetLag, LAG_RANGES[range].trendWindowMs)), [data, range])
  const notMirroringBecause = snapshot?.notMirroringBecause ?? null
  const summary = data === null || trend === null ? '' : describeLagChart(data, trend, LAG_RANGES[range].label, lagUnknown, notMirroringBecause)

  useEffect(() => {
    spansBox.set(spans)
    instance?.redraw(false, false)
  }, [spans, instance, spansBox])

  useEffect(() => {
    if (instance === null) return
    labels.forEach((label, index) => {
      const show = !hidden.has(label)
      instance.setSeries(1 + index, { show })
      instance.setSeries(1 + labels.length + index, { show })
    })
  }, [hidden, instance, labels])

  const toggle = (label: string) =>
    setHidden((current) => {
      const next = new Set(current)
      if (next.has(label)) next.delete(label)
      else next.add(label)
      return next
    })

  return (
    <Panel
      id="lag-chart"
      title={
        <span className="flex flex-wrap items-center gap-2">
          Lag
          {trend !== null && <LagTrendBadge trend={trend} lagUnknown={lagUnknown} notMirroringBecause={notMirroringBecause} />}
        </span>
      }
      actions={
        <div role="group" aria-label="Time range" className="inline-flex rounded-md border border-slate-200 p-0.5 dark:border-slate-700">
          {RANGES.map((option) => (
            <button
              key={option}
              type="button"
              aria-pressed={range === option}
              onClick={() => setRange(option)}
              className={`rounded px-2.5 py-0.5 text-xs font-medium focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
                range === option ? 'bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900' : 'text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'
              }`}
            >
              {LAG_RANGES[option].label}
            </button>
          ))}
        </div>
      }
    >
      {lag.status === 'error' && data === null ? (
        <ErrorPanel error={lag.error} title="Could not load the lag history" onRetry={() => void lag.refetch()} />
      ) : data === null || aligned === null ? (
        <div aria-busy="true">
          <Skeleton className="h-[220px] w-full" />
          <span className="sr-only">Loading the lag history…</span>
        </div>
      ) : (
        <figure className="m-0">
          <div role="img" aria-label={`Lag chart, last ${LAG_RANGES[range].label}. ${summary}`}>
            <UPlotChart options={options} data={aligned} layout={layout} height={CHART_HEIGHT} onCursor={setCursor} onReady={setInstance} />
          </div>
          <LagLegend data={data} labels={labels} hidden={hidden} cursor={cursor} onToggle={toggle} lowerBound={boundedNow} hatched={spans.length > 0} objectiveMs={objectiveMs} objectiveRecords={rpoRecords} />
          <figcaption className="mt-2 text-xs text-slate-600 dark:text-slate-400" data-testid="lag-summary">
            {summary}
          </figcaption>
        </figure>
      )}
    </Panel>
  )
}

function valueAt(values: ReadonlyArray<number | null>, index: number | null): number | null {
  if (index !== null) return values[index] ?? null
  for (let at = values.length - 1; at >= 0; at--) if (values[at] !== null && values[at] !== undefined) return values[at]!
  return null
}

function LagLegend({
  data,
  labels,
  hidden,
  cursor,
  onToggle,
  lowerBound,
  hatched,
  objectiveMs,
  objectiveRecords,
}: {
  data: LagChartData
  labels: readonly string[]
  hidden: ReadonlySet<string>
  cursor: number | null
  onToggle: (label: string) => void
  /** The latest values are lower bounds: marked "≥". */
  lowerBound: boolean
  /** The chart shows a span of unknown lag. */
  hatched: boolean
  /** The RPO objective's line on the time-lag axis, with its breach band above; null without one. */
  objectiveMs: number | null
  /** The RPO objective's line on the offset-lag axis; null without one. */
  objectiveRecords: number | null
}) {
  const bound = lowerBound && cursor === null ? '≥ ' : ''
  const groups = [data.total, ...data.groups]
  const at = cursor === null ? null : data.times[cursor]
  return (
    <div className="mt-2">
      <p className="mb-1 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        <span className="inline-flex items-center gap-1.5">
          <LegendLine stroke="currentColor" width="2" />
          offset lag (left axis)
        </span>
        <span className="inline-flex items-center gap-1.5">
          <LegendLine stroke="currentColor" width="2" dash="6 4" />
          time lag (right axis)
        </span>
        {objectiveMs !== null && (
          <span className="inline-flex items-center gap-1.5" data-testid="lag-objective-legend">
            <LegendLine stroke="var(--tone-danger)" width="1.5" dash="2 3" />
            RPO objective {formatDuration(objectiveMs)} (right axis)
          </span>
        )}
        {objectiveMs !== null && (
          <span className="inline-flex items-center gap-1.5" data-testid="lag-objective-band-legend">
            <svg aria-hidden width="16" height="10">
              <rect x="0.5" y="0.5" width="15" height="9" fill="var(--tone-danger)" fillOpacity={BAND_ALPHA * 2} stroke="var(--tone-danger)" strokeOpacity="0.5" />
            </svg>
            shaded: time lag over the objective (breached)
          </span>
        )}
        {objectiveRecords !== null && (
          <span className="inline-flex items-center gap-1.5" data-testid="lag-objective-records-legend">
            <LegendLine stroke="var(--tone-danger)" width="1.5" dash="8 3 2 3" />
            RPO objective {formatInteger(objectiveRecords)} {objectiveRecords === 1 ? 'record' : 'records'} (left axis)
          </span>
        )}
        {hatched && (
          <span className="inline-flex items-center gap-1.5" data-testid="lag-unknown-legend">
            <svg aria-hidden width="16" height="10">
              <rect x="0.5" y="0.5" width="15" height="9" fill="none" stroke="var(--tone-danger)" />
              <path d="M0 10 L10 0 M6 10 L16 0" stroke="var(--tone-danger)" strokeWidth="1.2" />
            </svg>
            hatched: lag not known (source silent), figures are lower bounds
          </span>
        )}
        <span className="tabular-nums">{at === undefined || at === null ? 'latest values (times in UTC)' : `at ${clockTime(at)} UTC`}</span>
      </p>
      <ul className="flex flex-wrap gap-1.5" aria-label="Series (select to show or hide)">
        {groups.map((group, index) => {
          const label = labels[index] ?? group.label
          const offsetLag = valueAt(group.offsetLag, cursor)
          const timeLag = valueAt(group.timeLagMs, cursor)
          const shown = !hidden.has(label)
          return (
            <li key={label}>
              <button
                type="button"
                aria-pressed={shown}
                onClick={() => onToggle(label)}
                title={group.topics.length > 1 && index > 0 ? group.topics.join(', ') : undefined}
                className={`inline-flex items-center gap-1.5 rounded-md border px-2 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                  shown ? 'border-slate-300 text-slate-800 dark:border-slate-600 dark:text-slate-100' : 'border-dashed border-slate-300 text-slate-500 line-through dark:border-slate-700 dark:text-slate-400'
                }`}
              >
                <span aria-hidden className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: `var(${colourOf(index)})` }} />
                <span className={index === 0 ? 'font-semibold' : ''}>{label}</span>
                <span className="tabular-nums text-slate-600 dark:text-slate-300">
                  {offsetLag === null ? '–' : `${bound}${formatCount(offsetLag)}`} · {timeLag === null ? '–' : `${bound}${formatDuration(timeLag)}`}
                </span>
              </button>
            </li>
          )
        })}
      </ul>
    </div>
  )
}

/** A legend's line sample: the stroke, width and dash the chart draws that series with. */
function LegendLine({ stroke, width, dash }: { stroke: string; width: string; dash?: string }) {
  return (
    <svg aria-hidden width="22" height="6">
      <line x1="0" y1="3" x2="22" y2="3" stroke={stroke} strokeWidth={width} strokeDasharray={dash} />
    </svg>
  )
}
