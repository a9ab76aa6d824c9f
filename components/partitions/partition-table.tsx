'use client'

import { useVirtualizer } from '@tanstack/react-virtual'
import { startTransition, useDeferredValue, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { MirrorPartitionStore, PartitionPreview, StoreChange } from '@/components/data/mirror-partition-store'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import {
  DEFAULT_SORT,
  NO_FILTER,
  SORT_COLUMNS,
  countByState,
  nextSort,
  partitionKey,
  selectPartitions,
  topicsOf,
  viewDependsOn,
  type PartitionFilter,
  type PartitionSort,
  type SortColumn,
} from '@/lib/ui/partition-table'
import { MIRROR_PARTITION_STATES, type MirrorPartitionState } from '@/lib/mirror/states'
import { GRID_TEMPLATE, PARTITION_COLUMNS, ROW_HEIGHT } from './partition-columns'
import { PartitionFilters, isFiltering, useOptionsAfter } from './partition-filters'
import { PartitionRowView } from './partition-row'
import { RetryOutcome, useRetryPartition } from './use-retry-partition'
import { useCanOperate } from '@/components/data/session-context'
import { formatInteger } from '@/lib/ui/format'

/** Below this width the rows become two-line cards (the table box never pushes the page sideways). */
const NARROW_BELOW_PX = 720

interface Ticks {
  /** Any change: visible rows redraw. */
  readonly render: number
  /** Membership or states changed: chip counts recount. */
  readonly states: number
  /** Membership changed: the topic list is rebuilt. */
  readonly membership: number
  /** A change that can add, remove or move a row in the current view: the view is re-selected. */
  readonly view: number
}

/**
 * The mirror's partitions, sortable by any column and filterable by state, topic, lag and text, virtualized
 * (only the rows in view, plus a few, are in the DOM) and live from the partition store.
 */
export function PartitionTable({
  mirror,
  store,
  status,
  error,
  isFetching,
  onRetry,
  phone = false,
}: {
  mirror: string
  store: MirrorPartitionStore
  status: 'pending' | 'error' | 'success'
  error: unknown
  isFetching: boolean
  onRetry: () => void
  /** The server's guess that the screen is a phone's (lib/ui/phone-guess.ts): the first render shows cards. */
  phone?: boolean
}) {
  const canOperate = useCanOperate({ mirror })
  const retry = useRetryPartition(mirror)
  const [sort, setSort] = useState<PartitionSort>(DEFAULT_SORT)
  const [filter, setFilter] = useState<PartitionFilter>(NO_FILTER)
  const text = useDeferredValue(filter.text)
  const effectiveFilter = useMemo(() => ({ ...filter, text }), [filter, text])
  const [ticks, setTicks] = useState<Ticks>({ render: 0, states: 0, membership: 0, view: 0 })
  const viewInputs = useRef({ filter: effectiveFilter, sort })
  useEffect(() => {
    viewInputs.current = { filter: effectiveFilter, sort }
  }, [effectiveFilter, sort])

  useEffect(
    () =>
      store.subscribe((change: StoreChange) => {
        const { filter: currentFilter, sort: currentSort } = viewInputs.current
        const moves = change.membership || [...change.kinds].some((kind) => viewDependsOn(kind, currentFilter, currentSort))
        // A transition: re-selecting and redrawing 2,000 rows yields to the browser instead of blocking it.
        startTransition(() =>
          setTicks((current) => ({
            render: current.render + 1,
            states: change.membership || change.kinds.has('state') ? current.states + 1 : current.states,
            membership: change.membership ? current.membership + 1 : current.membership,
            view: moves ? current.view + 1 : current.view,
          })),
        )
      }),
    [store],
  )

  // Until the whole list is in, the server's first screen (already in the default order, sorting and
  // filtering wait for the rest); the store's first answer is a membership change, which moves every tick.
  const preview = store.isLoaded ? null : store.preview
  const previewRows = useMemo(() => (preview === null ? null : new Map(preview.partitions.map((row) => [partitionKey(row.topic, row.partition), row]))), [preview])
  // The ticks are the store's versions: each memo below re-reads the store when its tick moves.
  /* eslint-disable react-hooks/exhaustive-deps */
  const keys = useMemo(
    () => (previewRows !== null ? [...previewRows.keys()] : selectPartitions(store.values(), effectiveFilter, sort).map((row) => partitionKey(row.topic, row.partition))),
    [store, previewRows, effectiveFilter, sort, ticks.view],
  )
  const counts = useMemo(() => (preview !== null ? previewCounts(preview) : countByState(store.values(), effectiveFilter)), [store, preview, effectiveFilter, ticks.states])
  const topics = useMemo(() => topicsOf(store.values()), [store, ticks.membership])
  /* eslint-enable react-hooks/exhaustive-deps */

  const scrollBox = useRef<HTMLDivElement>(null)
  const narrow = useNarrow(scrollBox, store.isLoaded || preview !== null, phone)
  const rowHeight = narrow ? ROW_HEIGHT.narrow : ROW_HEIGHT.wide
  const heightOf = (index: number) => {
    if (!narrow && !canOperate) return ROW_HEIGHT.wide
    const key = keys[index] ?? ''
    const row = previewRows !== null ? previewRows.get(key) : store.get(key)
    if (!narrow) return row?.state === 'FAILED' ? ROW_HEIGHT.wideFailed : ROW_HEIGHT.wide
    return row?.state === 'FAILED' ? ROW_HEIGHT.narrowFailed : ROW_HEIGHT.narrow
  }
  // The React Compiler cannot memoize the virtualizer's functions; it skips this component, which re-renders
  // on scroll by design.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: keys.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: heightOf,
    // Rows beyond the box's edges, for smooth scrolling: 4 (a phone's card is ~70 px) rather than 8, fewer rows in the
    // page's HTML and in each commit of the load (every row node is laid out, hydrated and updated with the list).
    overscan: 4,
    // Rows are keyed by partition, so a re-sort moves rows instead of re-rendering every slot.
    getItemKey: (index) => keys[index] ?? index,
    // Before the box is measured (the server's render, the first one in the browser): a first screen of
    // rows rather than none, the same on both sides so hydration matches.
    initialRect: FIRST_RENDER_RECT,
  })
  // A row's height follows its state: measured again when states change (wide rows differ only for an operator's FAILED ones).
  const cardStates = narrow || canOperate ? ticks.states : 0
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer, cardStates])

  if (!store.isLoaded) {
    if (status === 'error') return <ErrorPanel error={error} title="Could not load the partitions" onRetry={onRetry} />
    if (preview === null) return <PartitionTableSkeleton />
  }

  const total = preview?.total ?? store.size
  const rowOf = (key: string) => (previewRows !== null ? previewRows.get(key) : store.get(key))
  const headerHeight = narrow ? 0 : 36
  return (
    <Panel
      id="partitions"
      title="Partitions"
      actions={
        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="partition-count">
          {preview !== null ? `${formatInteger(total)} ${total === 1 ? 'partition' : 'partitions'}` : keys.length === total ? `${formatInteger(total)} ${total === 1 ? 'partition' : 'partitions'}` : `${formatInteger(keys.length)} of ${formatInteger(total)} partitions`}
          {preview !== null ? <span>{keys.length < total ? ` · the first ${formatInteger(keys.length)} shown, loading the rest to sort and filter…` : ' · loading…'}</span> : isFetching && <span className="sr-only"> (refreshing)</span>}
        </p>
      }
    >
      <div className="flex flex-col gap-3">
        {/* Sorting and filtering a first screen would mislead: they wait for the whole list. */}
        <fieldset disabled={preview !== null} className="contents">
          <legend className="sr-only">Filter and sort the partitions</legend>
          <PartitionFilters filter={filter} counts={counts} topics={topics} onChange={setFilter} complete={preview === null} />
          {narrow && <SortSelect sort={sort} onChange={setSort} complete={preview === null} />}
        </fieldset>
        <RetryOutcome retry={retry} />
        {status === 'error' && <ErrorPanel compact error={error} title="Could not refresh the partitions (showing the last answer, kept live by events)" onRetry={onRetry} />}
        <div
          ref={scrollBox}
          role="table"
          aria-label={`Partitions of mirror ${mirror}`}
          aria-rowcount={(preview !== null ? total : keys.length) + 1}
          aria-busy={preview !== null}
          data-complete={preview === null}
          tabIndex={0}
          data-testid="partition-scroll"
          style={{ height: `min(70vh, 36rem, ${Math.max(headerHeight + virtualizer.getTotalSize() + 2, 160)}px)` }}
          className="relative overflow-auto overscroll-contain rounded-md border border-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-800"
        >
          <div style={{ minWidth: narrow ? undefined : '65rem' }}>
            <div role="rowgroup" className={narrow ? 'sr-only' : 'sticky top-0 z-10'}>
              <div
                role="row"
                aria-rowindex={1}
                className="grid border-b border-slate-200 bg-slate-50 text-xs font-semibold text-slate-600 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300"
                style={{ gridTemplateColumns: GRID_TEMPLATE, height: headerHeight || undefined }}
              >
                {PARTITION_COLUMNS.map(({ column, label, numeric, title }) => (
                  <div key={column} role="columnheader" aria-sort={sort.column === column ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'} className="flex">
                    {/* aria-disabled, not disabled, until the whole list is in: a button's :disabled flip restyles it (the
                        stylesheet has :disabled rules), and these nine did so in the commit the list arrives in: ~80 of
                        its ~200 invalidations in Lighthouse's trace. The click is refused here instead. */}
                    <button
                      type="button"
                      aria-disabled={preview !== null}
                      title={title}
                      onClick={() => {
                        if (preview === null) setSort((current) => nextSort(current, column))
                      }}
                      className={`flex w-full items-center gap-1 whitespace-nowrap px-3 py-2 hover:text-slate-900 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-500 dark:hover:text-white ${numeric ? 'justify-end text-right' : 'text-left'}`}
                    >
                      {label}
                      <span aria-hidden className={sort.column === column ? 'text-slate-900 dark:text-white' : 'text-slate-300 dark:text-slate-600'}>
                        {sort.column === column ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
                      </span>
                    </button>
                  </div>
                ))}
              </div>
            </div>
            <div role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = rowOf(keys[item.index] ?? '')
                if (row === undefined) return null
                const retrying = retry.pending !== null && retry.pending.topic === row.topic && retry.pending.partition === row.partition
                return <PartitionRowView key={item.key} mirror={mirror} row={row} rowIndex={item.index + 2} narrow={narrow} top={item.start} height={item.size} retry={canOperate ? retry.retry : null} retrying={retrying} />
              })}
            </div>
          </div>
          {keys.length === 0 && (
            <div className="absolute inset-x-0 top-16 px-4 text-center text-sm text-slate-600 dark:text-slate-300">
              {total === 0 ? (
                <p>This mirror has no partitions yet. Start topics to mirror them.</p>
              ) : (
                <p>
                  No partition matches these filters.{' '}
                  {isFiltering(filter) && (
                    <button type="button" className={buttonClass('ghost', 'sm')} onClick={() => setFilter(NO_FILTER)}>
                      Clear filters
                    </button>
                  )}
                </p>
              )}
            </div>
          )}
        </div>
      </div>
    </Panel>
  )
}

/** A desktop table box (36rem) before it is measured; the virtualizer renders the rows that fit, plus its overscan. */
const FIRST_RENDER_RECT = { width: 1280, height: 576 }

function previewCounts(preview: PartitionPreview): Record<MirrorPartitionState, number> {
  return Object.fromEntries(MIRROR_PARTITION_STATES.map((state) => [state, preview.partitionsByState[state] ?? 0])) as Record<MirrorPartitionState, number>
}

const SORT_LABELS: Record<SortColumn, string> = Object.fromEntries(PARTITION_COLUMNS.map(({ column, label }) => [column, label])) as Record<SortColumn, string>

/**
 * On narrow screens the column headers are hidden (rows are cards): sorting is a select instead. Disabled until the
 * whole list is in (`complete`), it holds only the chosen order (PartitionFilters says why).
 */
function SortSelect({ sort, onChange, complete }: { sort: PartitionSort; onChange: (sort: PartitionSort) => void; complete: boolean }) {
  const id = useId()
  const allOptions = useOptionsAfter(complete)
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-xs font-medium text-slate-600 dark:text-slate-300">
        Sort by
      </label>
      <select
        id={id}
        value={`${sort.column}:${sort.direction}`}
        onChange={(event) => {
          const [column, direction] = event.target.value.split(':') as [SortColumn, 'asc' | 'desc']
          onChange({ column, direction })
        }}
        className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
      >
        {SORT_COLUMNS.flatMap((column) =>
          (['asc', 'desc'] as const)
            .filter((direction) => allOptions || (column === sort.column && direction === sort.direction))
            .map((direction) => (
              <option key={`${column}:${direction}`} value={`${column}:${direction}`}>
                {SORT_LABELS[column]} {direction === 'asc' ? '▲' : '▼'}
              </option>
            )),
        )}
      </select>
    </div>
  )
}

/** Whether the table's box is narrower than NARROW_BELOW_PX (cards instead of columns); `guess` until measured. */
function useNarrow(box: React.RefObject<HTMLDivElement | null>, mounted: boolean, guess: boolean): boolean {
  // The server's guess, so that hydration matches it; measured (and corrected if wrong) once mounted.
  const [narrow, setNarrow] = useState(guess)
  useLayoutEffect(() => {
    const element = box.current?.parentElement
    if (!mounted || !element) return
    const update = () => setNarrow(element.clientWidth < NARROW_BELOW_PX)
    update()
    const observer = new ResizeObserver(update)
    observer.observe(element)
    return () => observer.disconnect()
  }, [box, mounted])
  return narrow
}

export function PartitionTableSkeleton() {
  return (
    <Panel title="Partitions">
      <div aria-busy="true" className="flex flex-col gap-2">
        <span className="sr-only">Loading partitions…</span>
        <div className="flex gap-1.5">
          {[0, 1, 2, 3].map((index) => (
            <Skeleton key={index} className="h-5 w-24 rounded-full" />
          ))}
        </div>
        <Skeleton className="h-8 w-full max-w-xl" />
        {Array.from({ length: 8 }, (_, index) => (
          <Skeleton key={index} className="h-8 w-full" />
        ))}
      </div>
    </Panel>
  )
}
