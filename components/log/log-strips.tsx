'use client'
// Over 400 lines on purpose: the two tapes of one partition (source and destination) share one virtualizer,
// keyboard model and opening position; split, their scroll and selection would have to be synchronised across files.

import { useVirtualizer } from '@tanstack/react-virtual'
import { memo, useEffect, useLayoutEffect, useRef, type Dispatch, type KeyboardEvent, type SetStateAction } from 'react'
import type { RecordEntry } from '@/lib/api/records'
import { formatCount, formatOffset } from '@/lib/ui/format'
import { describeCell, openingColumn, RECORD_LOOK, recordContent, type AlignedLogs, type LogCell } from '@/lib/ui/log-strip'
import { sameRecord } from '@/lib/ui/record-window'

/**
 * Two logs as tapes, aligned by offset (lib/ui/log-strip.ts): one fixed-width cell per offset, record types
 * told apart by glyph and colour, the mirrored position as a line across both tapes, the last truncation as a
 * cut on the destination, the source records at risk hatched. A keyboard grid: Tab enters it on the selected
 * cell, arrows move (up/down switch tapes), Home/End go to the ends of the page. Reused by the failback
 * wizard to show a truncation point with the records it removes (`removedRecords`).
 */

export type LaneId = 'source' | 'destination'

export interface LaneName {
  /** "source", "destination", or what the caller calls them ("old source"). */
  readonly title: string
  /** For narrow screens: "src", "dest". */
  readonly short: string
  readonly cluster: string
}

export interface StripSelection {
  readonly offset: number
  readonly lane: LaneId
}

const CELL_WIDTH = 96
/** The tape's width before it is measured: a wide screen's, or a phone's (UI.md: 390 px wide). */
const WIDE_WIDTH = 1280
const PHONE_WIDTH = 390
const LANES: readonly LaneId[] = ['source', 'destination']

type Step = (current: StripSelection, firstOffset: number, lastOffset: number) => StripSelection

const KEY_STEPS: ReadonlyMap<string, Step> = new Map<string, Step>([
  ['ArrowRight', (current, _first, last) => ({ ...current, offset: Math.min(last, current.offset + 1) })],
  ['ArrowLeft', (current, first) => ({ ...current, offset: Math.max(first, current.offset - 1) })],
  ['ArrowDown', (current) => ({ ...current, lane: 'destination' })],
  ['ArrowUp', (current) => ({ ...current, lane: 'source' })],
  ['Home', (current, first) => ({ ...current, offset: first })],
  ['End', (current, _first, last) => ({ ...current, offset: last })],
])

/** `aligned` comes from alignLogs (lib/ui/log-strip.ts); the caller keeps it to show the selected column's details. */
export function LogStrips({
  aligned,
  names,
  selection,
  onSelect,
  label,
  mismatches,
  openAt = null,
  phone = false,
}: {
  aligned: AlignedLogs
  names: Readonly<Record<LaneId, LaneName>>
  selection: StripSelection | null
  onSelect: Dispatch<SetStateAction<StripSelection | null>>
  label: string
  /** A verification's differences, by offset: drawn on the destination's cells (lib/ui/verification-view.ts). */
  mismatches?: ReadonlyMap<number, string>
  /**
   * The offset the story is at (the mirrored position, a truncation cut): the tape scrolls to it once per page,
   * so a window holding the whole log does not open at offset 0. Null once the operator picked an offset.
   */
  openAt?: number | null
  /** The server's guess that the screen is a phone's (lib/ui/phone-guess.ts): its first render draws a phone's width of cells. */
  phone?: boolean
}) {
  const grid = useRef<HTMLDivElement>(null)
  const scroller = useRef<HTMLDivElement>(null)
  const { columns } = aligned
  const firstWidth = phone ? PHONE_WIDTH : WIDE_WIDTH
  // A page of 1,000 offsets is 2,000 cells: only the columns in view (and a few either side) are in the DOM.
  // The React Compiler cannot memoize the virtualizer's functions; this component is not compiled, and the
  // virtualizer re-renders it on scroll by design.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    horizontal: true,
    count: columns.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => CELL_WIDTH,
    // Columns beyond the box's edges, for smooth scrolling. Each cell is about a dozen DOM nodes, and a tape that
    // re-opens at a moved story point replaces all of them: 8 a side drew up to 20 columns a tape on a phone showing 4.
    overscan: 3,
    // The server renders the first columns the screen it guessed shows (the browser's first render must match).
    initialRect: { width: firstWidth, height: 200 },
    // Opened at the story's point (openAt) rather than at the page's first offset.
    initialOffset: () => (openAt === null ? 0 : openingColumn({ from: columns[0]?.offset ?? 0, size: columns.length }, openAt, Math.floor((scroller.current?.clientWidth ?? firstWidth) / CELL_WIDTH)) * CELL_WIDTH),
  })
  const firstOffset = columns[0]?.offset ?? 0
  const lastOffset = columns.at(-1)?.offset ?? 0
  // The cell Tab lands on: the selection when it is on this page, else the first cell.
  const focusOffset = selection !== null && selection.offset >= firstOffset && selection.offset <= lastOffset ? selection.offset : firstOffset
  const focusLane: LaneId = selection?.lane ?? 'source'

  // Focus follows a keyboard move once React has committed it. Each step is computed from the latest
  // selection (an updater), not from this render's: a key pressed before the last move rendered must not
  // repeat that move, and an older move's focus must never land late and select its cell again.
  const focusAfterCommit = useRef(false)
  useEffect(() => {
    if (!focusAfterCommit.current || selection === null) return
    focusAfterCommit.current = false
    const cell = grid.current?.querySelector<HTMLElement>(`[data-lane="${selection.lane}"][data-offset="${selection.offset}"]`)
    cell?.focus({ preventScroll: true })
    cell?.scrollIntoView({ block: 'nearest', inline: 'nearest' })
    virtualizer.scrollToIndex(selection.offset - firstOffset, { align: 'auto' })
  }, [selection, virtualizer, firstOffset])

  // Once per page of offsets (keyed by its first), before paint: the operator sees the story's point, not offset 0,
  // and a tape they scrolled themselves is left where they put it. Through the virtualizer (it keeps its own
  // idea of the offset and wrote its initial 0 back over a plain scrollLeft), again each render until it holds:
  // the tape may not be wide enough yet on the first.
  const openedPage = useRef<number | null>(null)
  useLayoutEffect(() => {
    const box = scroller.current
    if (openAt === null || box === null || columns.length === 0 || openedPage.current === firstOffset) return
    const visible = Math.floor(box.clientWidth / CELL_WIDTH)
    const target = Math.min(openingColumn({ from: firstOffset, size: columns.length }, openAt, visible), columns.length - 1) * CELL_WIDTH
    const reachable = Math.min(target, box.scrollWidth - box.clientWidth)
    // A tape narrower than its box has nowhere to scroll (yet: its columns may still be coming).
    if (target > 0 && reachable <= 0) return
    if (target > 0 && Math.abs(box.scrollLeft - reachable) > 1) virtualizer.scrollToOffset(target)
    if (target === 0 || (reachable > 0 && Math.abs(box.scrollLeft - reachable) <= 1)) openedPage.current = firstOffset
  })

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (columns.length === 0) return
    const step = KEY_STEPS.get(event.key)
    if (step === undefined) return
    event.preventDefault()
    focusAfterCommit.current = true
    onSelect((previous) => {
      const current = previous !== null && previous.offset >= firstOffset && previous.offset <= lastOffset ? previous : { offset: firstOffset, lane: previous?.lane ?? 'source' }
      return step(current, firstOffset, lastOffset)
    })
  }

  if (columns.length === 0) {
    return <p className="rounded-md border border-dashed border-slate-300 px-3 py-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-300">Both logs are empty: nothing has been written to this partition yet.</p>
  }

  const focusIndex = focusOffset - firstOffset
  const rendered = virtualizer.getVirtualItems().map((item) => item.index)
  // The roving tab stop is always in the DOM, so Tab can enter the grid wherever it is scrolled.
  if (!rendered.includes(focusIndex)) rendered.push(focusIndex)
  const shown = rendered.map((index) => columns[index]).filter((column) => column !== undefined)
  const trackWidth = columns.length * CELL_WIDTH
  const labelWidth = 'var(--strip-label-width)'
  const lineLeft = (index: number) => `calc(${labelWidth} + ${index * CELL_WIDTH}px)`
  return (
    <div ref={scroller} className="overflow-x-auto overscroll-x-contain rounded-md border border-slate-200 dark:border-slate-800" data-testid="log-strips-scroller">
      <div
        ref={grid}
        role="grid"
        aria-label={label}
        aria-rowcount={3}
        aria-colcount={columns.length + 1}
        onKeyDown={onKeyDown}
        className="relative w-max pb-7 [--strip-label-width:4.75rem] sm:[--strip-label-width:7.5rem]"
      >
        <div role="row" className="flex h-7 border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-950/60">
          <div role="columnheader" className="sticky left-0 z-20 flex shrink-0 items-center bg-slate-50 px-2 text-[11px] font-medium uppercase tracking-wide text-slate-500 dark:bg-slate-950 dark:text-slate-400" style={{ width: labelWidth }}>
            offset
          </div>
          <div className="relative shrink-0" style={{ width: trackWidth }}>
            {shown.map((column) => (
              <div
                key={column.offset}
                role="columnheader"
                aria-colindex={column.offset - firstOffset + 2}
                className={`absolute inset-y-0 flex items-center justify-center border-l border-slate-200 px-1.5 font-mono text-[12px] tabular-nums dark:border-slate-800 ${
                  selection?.offset === column.offset ? 'bg-indigo-100 font-semibold text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100' : 'text-slate-700 dark:text-slate-300'
                }`}
                style={{ left: (column.offset - firstOffset) * CELL_WIDTH, width: CELL_WIDTH }}
              >
                {formatOffset(column.offset)}
              </div>
            ))}
          </div>
        </div>
        {LANES.map((lane) => (
          <div key={lane} role="row" className={`flex ${lane === 'source' ? 'border-b border-slate-200 dark:border-slate-800' : ''}`}>
            <div
              role="rowheader"
              className="sticky left-0 z-20 flex shrink-0 flex-col justify-center border-r border-slate-200 bg-white px-2 py-1 dark:border-slate-800 dark:bg-slate-900"
              style={{ width: labelWidth }}
            >
              <span className="text-[11px] font-semibold uppercase tracking-wide text-slate-700 dark:text-slate-200">
                <span className="sm:hidden">{names[lane].short}</span>
                <span className="hidden sm:inline">{names[lane].title}</span>
              </span>
              <span className="truncate text-[11px] text-slate-500 dark:text-slate-400" title={names[lane].cluster}>
                {names[lane].cluster}
              </span>
            </div>
            <div className="relative h-[4.25rem] shrink-0" style={{ width: trackWidth }}>
              {shown.map((column) => (
              <StripCell
                key={column.offset}
                left={(column.offset - firstOffset) * CELL_WIDTH}
                column={column.offset - firstOffset + 2}
                lane={lane}
                cell={column[lane]}
                mismatch={lane === 'destination' ? mismatches?.get(column.offset) : undefined}
                mirroredOffset={aligned.mirroredOffset}
                selected={selection !== null && selection.offset === column.offset && selection.lane === lane}
                tabbable={column.offset === focusOffset && lane === focusLane}
                onSelect={onSelect}
              />
              ))}
            </div>
          </div>
        ))}
        {aligned.truncation !== null && aligned.truncationLine !== null && (
          // Across the destination tape only: below the offset row and the source tape.
          <div aria-hidden className="pointer-events-none absolute z-10" style={{ left: lineLeft(aligned.truncationLine), top: 'calc(1.75rem + 4.25rem + 1px)', height: '4.25rem' }}>
            <div className="absolute inset-y-0 -left-px w-0 border-l-[3px] border-dotted border-red-600 dark:border-red-400" />
            <span className="absolute -left-2.5 -top-2 text-sm leading-none text-red-700 dark:text-red-300">✂</span>
          </div>
        )}
        {aligned.mirroredLine !== null && (
          <div aria-hidden data-testid="mirrored-line" className="pointer-events-none absolute top-0 z-10" style={{ left: lineLeft(aligned.mirroredLine), bottom: '0.25rem' }}>
            <div className="absolute inset-y-0 -left-px w-0.5 bg-indigo-600 dark:bg-indigo-400" />
            <span className="absolute bottom-0 left-1 whitespace-nowrap rounded bg-indigo-600 px-1.5 py-px text-[11px] font-semibold text-white">
              ◂ mirrored to {formatOffset(aligned.mirroredOffset ?? 0)}
            </span>
          </div>
        )}
        {aligned.truncation !== null && aligned.truncationLine !== null && (
          <span
            aria-hidden
            className="pointer-events-none absolute bottom-1 z-10 whitespace-nowrap rounded bg-red-700 px-1.5 py-px text-[11px] font-semibold text-white"
            style={{ left: `calc(${lineLeft(aligned.truncationLine)} - 0.25rem)`, transform: 'translateX(-100%)' }}
          >
            cut at {formatOffset(aligned.truncation.offset)} ✂
          </span>
        )}
      </div>
    </div>
  )
}

const TONE_CELL = {
  neutral: 'border-slate-300 bg-white dark:border-slate-600 dark:bg-slate-900',
  healthy: 'border-emerald-600 bg-emerald-50 dark:border-emerald-400 dark:bg-emerald-950',
  danger: 'border-red-600 bg-red-50 dark:border-red-400 dark:bg-red-950',
  done: 'border-violet-600 bg-violet-50 dark:border-violet-400 dark:bg-violet-950',
  progress: 'border-sky-600 bg-sky-50 dark:border-sky-400 dark:bg-sky-950',
} as const

const GLYPH_COLOUR = {
  neutral: 'text-slate-500 dark:text-slate-400',
  healthy: 'text-emerald-700 dark:text-emerald-300',
  danger: 'text-red-700 dark:text-red-300',
  done: 'text-violet-700 dark:text-violet-300',
  progress: 'text-sky-700 dark:text-sky-300',
} as const

/** Hatching for records at risk: a pattern, so it reads without colour. */
const HATCH = 'bg-[repeating-linear-gradient(135deg,rgb(245_158_11/0.28)_0_4px,transparent_4px_9px)] dark:bg-[repeating-linear-gradient(135deg,rgb(251_191_36/0.3)_0_4px,transparent_4px_9px)]'

interface StripCellProps {
  /** Where the column sits on the track, in px. */
  left: number
  /** aria-colindex: the row header is column 1. */
  column: number
  lane: LaneId
  cell: LogCell
  /** What a verification found different at this offset (destination cells only). */
  mismatch?: string | undefined
  mirroredOffset: number | null
  selected: boolean
  tabbable: boolean
  onSelect: (selection: StripSelection) => void
}

const StripCell = memo(function StripCell({ left, column, lane, cell, mismatch, mirroredOffset, selected, tabbable, onSelect }: StripCellProps) {
  const description = `${describeCell(lane, cell, mirroredOffset)}${mismatch === undefined ? '' : `; differs from the source: ${mismatch}`}`
  return (
    <div
      role="gridcell"
      aria-colindex={column}
      tabIndex={tabbable ? 0 : -1}
      aria-selected={selected}
      title={description}
      data-lane={lane}
      data-offset={cell.offset}
      data-type={cell.record?.type}
      data-at-risk={cell.atRisk || undefined}
      data-removed={cell.removed !== null || undefined}
      data-mismatch={mismatch !== undefined || undefined}
      onClick={() => onSelect({ lane, offset: cell.offset })}
      onFocus={() => {
        if (!selected) onSelect({ lane, offset: cell.offset })
      }}
      className={`absolute inset-y-0 cursor-pointer border-l border-slate-200 p-1 outline-none focus-visible:z-20 focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-600 dark:border-slate-800 dark:focus-visible:ring-indigo-300 ${
        selected ? 'bg-indigo-50 dark:bg-indigo-950/60' : mismatch !== undefined ? 'bg-red-100 dark:bg-red-950/70' : ''
      }`}
      style={{ left, width: CELL_WIDTH }}
    >
      {/* The cell's name is the sentence (a hidden text, not an aria-label: axe's label-content-name-mismatch wants a
          label to hold the drawing's text); the drawing is for the eyes (it abbreviates what the sentence says). */}
      <span className="sr-only">{description}</span>
      <div aria-hidden className="h-full">
        {cell.record !== null ? <RecordBox record={cell.record} atRisk={cell.atRisk} selected={selected} /> : <EmptyBox cell={cell} selected={selected} />}
        {cell.removed !== null && cell.record === null && <GhostBox record={cell.removed} />}
        {mismatch !== undefined && (
          <span className="absolute top-0.5 right-0.5 z-10 grid h-4 min-w-4 place-items-center rounded-full bg-red-700 px-1 text-[11px] leading-none font-bold text-white ring-2 ring-white dark:bg-red-500 dark:ring-slate-900">
            ≠
          </span>
        )}
      </div>
    </div>
  )
}, sameCell)

// Cells are rebuilt on every alignment; comparing what a cell shows spares the unchanged ones of a 1,000-offset
// page. A record read again keeps its identity when only the window's tail was read (use-records.ts); read whole
// (no structural sharing there), it is a new object with the same fields.
function sameCell(previous: StripCellProps, next: StripCellProps): boolean {
  return (
    previous.left === next.left &&
    previous.column === next.column &&
    previous.lane === next.lane &&
    previous.selected === next.selected &&
    previous.tabbable === next.tabbable &&
    previous.onSelect === next.onSelect &&
    previous.mirroredOffset === next.mirroredOffset &&
    previous.mismatch === next.mismatch &&
    previous.cell.offset === next.cell.offset &&
    (previous.cell.record === next.cell.record || (previous.cell.record !== null && next.cell.record !== null && sameRecord(previous.cell.record, next.cell.record))) &&
    previous.cell.empty === next.cell.empty &&
    previous.cell.atRisk === next.cell.atRisk &&
    previous.cell.removed === next.cell.removed
  )
}

function RecordBox({ record, atRisk, selected }: { record: RecordEntry; atRisk: boolean; selected: boolean }) {
  const look = RECORD_LOOK[record.type]
  const marker = record.type !== 'DATA'
  return (
    <div
      className={`flex h-full flex-col justify-between overflow-hidden border-2 px-1.5 py-0.5 font-mono text-[11px] leading-tight ${TONE_CELL[look.tone]} ${marker ? 'rounded-[14px]' : 'rounded-sm'} ${
        selected ? 'outline-2 outline-offset-1 outline-indigo-600 dark:outline-indigo-300' : ''
      } ${atRisk ? HATCH : ''}`}
    >
      <span className={`flex items-center gap-1 truncate font-semibold text-slate-900 dark:text-slate-50 ${marker ? 'text-[11px] tracking-tight' : 'text-[12px]'}`}>
        <span aria-hidden className={GLYPH_COLOUR[look.tone]}>
          {look.glyph}
        </span>
        <span className="truncate">{recordContent(record)}</span>
      </span>
      <span className="truncate text-slate-700 dark:text-slate-300">{record.producerId === null ? 'no pid' : `pid ${record.producerId}`}</span>
      <span className="flex justify-between text-slate-700 dark:text-slate-300">
        <span>e{record.producerEpoch ?? '–'}</span>
        <span>L{record.leaderEpoch}</span>
      </span>
    </div>
  )
}

const EMPTY_LOOK = {
  loading: '',
  beforeLogStart: 'deleted',
  beyondLogEnd: '',
  aboveHighWatermark: '> HW',
  noRecord: 'compacted',
} as const

function EmptyBox({ cell, selected }: { cell: LogCell; selected: boolean }) {
  if (cell.empty === 'loading') return <div aria-hidden className="h-full motion-safe:animate-pulse rounded-sm bg-slate-100 dark:bg-slate-800" />
  return (
    <div
      className={`flex h-full items-center justify-center rounded-sm border border-dashed text-[10px] uppercase tracking-wide ${
        cell.atRisk ? `border-amber-500 text-amber-900 dark:border-amber-400 dark:text-amber-100 ${HATCH}` : 'border-slate-200 text-slate-500 dark:border-slate-700 dark:text-slate-400'
      } ${selected ? 'outline-2 outline-offset-1 outline-indigo-600 dark:outline-indigo-300' : ''}`}
    >
      {cell.atRisk ? 'not here' : EMPTY_LOOK[cell.empty ?? 'noRecord']}
    </div>
  )
}

function GhostBox({ record }: { record: RecordEntry }) {
  const look = RECORD_LOOK[record.type]
  return (
    <div aria-hidden className="absolute inset-1 flex flex-col justify-center rounded-sm border-2 border-dashed border-red-400 bg-white/70 px-1.5 font-mono text-[11px] text-slate-500 line-through opacity-80 dark:bg-slate-900/70 dark:text-slate-400">
      <span>
        {look.glyph} {recordContent(record)}
      </span>
      <span>{record.producerId === null ? 'no pid' : `pid ${record.producerId}`}</span>
    </div>
  )
}

/** The legend under the tapes: every glyph and mark, in words. */
export function LogStripsLegend({ atRiskCount }: { atRiskCount: number | null }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1.5 text-xs text-slate-600 dark:text-slate-300">
      {(['DATA', 'COMMIT', 'ABORT', 'MIRROR_PID_RESET'] as const).map((type) => {
        const look = RECORD_LOOK[type]
        return (
          <li key={type} className="flex items-center gap-1.5">
            <span aria-hidden className={`inline-grid h-4 w-6 place-items-center border-2 font-mono text-[10px] ${TONE_CELL[look.tone]} ${type === 'DATA' ? 'rounded-sm' : 'rounded-lg'} ${GLYPH_COLOUR[look.tone]}`}>
              {look.glyph}
            </span>
            {type === 'DATA' ? 'data (key=value)' : type === 'MIRROR_PID_RESET' ? 'MIRROR_PID_RESET' : type}
          </li>
        )
      })}
      <li className="flex items-center gap-1.5">
        <span aria-hidden className={`inline-block h-4 w-6 rounded-sm border border-amber-500 ${HATCH}`} />
        at risk{atRiskCount === null ? '' : ` (${formatCount(atRiskCount)})`}: on the source, not mirrored
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block h-4 w-0.5 bg-indigo-600 dark:bg-indigo-400" />
        mirrored position
      </li>
      <li className="flex items-center gap-1.5">
        <span aria-hidden className="inline-block h-4 w-0 border-l-[3px] border-dotted border-red-600 dark:border-red-400" />
        last truncation (cut)
      </li>
      <li>
        <span className="font-mono">pid</span> producer id · <span className="font-mono">e</span> producer epoch · <span className="font-mono">L</span> leader epoch
      </li>
    </ul>
  )
}
