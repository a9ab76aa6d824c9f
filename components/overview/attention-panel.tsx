'use client'

import { useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useCallback, useRef } from 'react'
import type { AttentionGroup, AttentionItem, AttentionResponse } from '@/lib/api/attention'
import { overviewEndpoints } from '@/lib/api/routes'
import { clockTime, formatCount, formatDuration, formatInteger, formatOffset } from '@/lib/ui/format'
import { TONE_STYLE } from '@/lib/ui/state-style'
import { ATTENTION_KIND_STYLE, RPO_STATUS_STYLE } from '@/lib/ui/status-style'
import { describeRpo, describeRpoObjective } from '@/lib/failover/rpo'
import type { RpoBreach } from '@/lib/overview/rpo-breaches'
import { useEventListener } from '@/components/data/event-stream'
import { queryKeys } from '@/components/data/query-keys'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import { NextRetry } from '@/components/incident/incident-banner'

/** A partition transition can make or clear a finding: refetch, at most every two seconds. */
const REFETCH_AFTER_EVENT_MS = 2_000

function useRefetchOnPartitionEvents(): void {
  const queryClient = useQueryClient()
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const listener = useCallback(() => {
    if (timer.current !== undefined) return
    timer.current = setTimeout(() => {
      timer.current = undefined
      void queryClient.invalidateQueries({ queryKey: queryKeys.of(overviewEndpoints.attention) })
    }, REFETCH_AFTER_EVENT_MS)
  }, [queryClient])
  useEventListener('partition', listener)
}

export function AttentionPanel({
  attention,
  error,
  onRetry,
  rpoBreaches = [],
}: {
  attention: AttentionResponse | undefined
  error: unknown
  onRetry: () => void
  /** Mirrors over their RPO objective now (lib/overview/rpo-breaches.ts): mirror findings, listed before the partitions'. */
  rpoBreaches?: readonly RpoBreach[]
}) {
  useRefetchOnPartitionEvents()
  const total = attention === undefined ? 0 : attention.totals.failed + attention.totals.lagGrowing + attention.totals.staleFetch + attention.totals.paused
  const findings = total + rpoBreaches.length
  return (
    <Panel id="attention" title={attention === undefined || findings === 0 ? 'Needs attention' : `Needs attention (${formatInteger(findings)})`}>
      {error !== null && attention === undefined ? (
        <ErrorPanel error={error} title="Could not load what needs attention" onRetry={onRetry} compact />
      ) : attention === undefined ? (
        <div className="space-y-3" aria-hidden>
          <Skeleton className="h-12 w-full" />
          <Skeleton className="h-12 w-full" />
          <Skeleton className="h-12 w-4/5" />
        </div>
      ) : findings === 0 ? (
        <p className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-300">
          <span aria-hidden className="text-emerald-600 dark:text-emerald-400">
            ✓
          </span>
          Nothing needs attention: no FAILED or paused partition, no lag growing for over a minute, every fetch within {formatDuration(attention.staleAfterMs)}, no mirror over its RPO objective.
        </p>
      ) : (
        <div className="space-y-3">
          {rpoBreaches.length > 0 && <RpoBreachList breaches={rpoBreaches} />}
          {total > 0 && <Totals totals={attention.totals} />}
          {attention.groups !== undefined ? (
            <ol aria-label="What needs attention, by mirror and cause, worst first" className="space-y-2">
              {attention.groups.map((group) => (
                <AttentionGroupRow key={`${group.mirror}/${group.kind}/${group.cause ?? ''}`} group={group} staleAfterMs={attention.staleAfterMs} />
              ))}
            </ol>
          ) : (
            <ol aria-label="Partitions that need attention, worst first" className="space-y-2">
              {attention.items.map((item) => (
                <AttentionRow key={`${item.mirror}/${item.topic}/${item.partition}`} item={item} staleAfterMs={attention.staleAfterMs} />
              ))}
            </ol>
          )}
          {attention.groups === undefined && attention.items.length < total && (
            <p className="text-xs text-slate-500 dark:text-slate-400">
              The {attention.items.length} worst of {formatInteger(total)} are listed; each mirror&apos;s page filters the rest by state.
            </p>
          )}
        </div>
      )}
    </Panel>
  )
}

/** One line per mirror over its RPO objective: what a failover now would lose against what it may. */
function RpoBreachList({ breaches }: { breaches: readonly RpoBreach[] }) {
  return (
    <ol aria-label="Mirrors over their RPO objective, most at risk first" className="space-y-2">
      {breaches.map((breach) => (
        <li key={breach.mirror} data-rpo-breach={breach.mirror} className="rounded-md border border-slate-200 p-2.5 text-sm dark:border-slate-800">
          <span className="flex flex-wrap items-center gap-x-1.5 gap-y-1">
            <Link prefetch={false}
              href={`/mirrors/${encodeURIComponent(breach.mirror)}#objectives`}
              className="font-mono font-medium break-all text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-white"
            >
              {breach.mirror}
            </Link>
            <StatusBadge look={RPO_STATUS_STYLE.breached} />
          </span>
          <span className="mt-0.5 block text-xs text-slate-600 dark:text-slate-300">
            a failover now loses {describeRpo(breach)} (objective {describeRpoObjective({ ...(breach.rpoRecords === null ? {} : { rpoRecords: breach.rpoRecords }), ...(breach.rpoSeconds === null ? {} : { rpoSeconds: breach.rpoSeconds }) })})
          </span>
        </li>
      ))}
    </ol>
  )
}

function Totals({ totals }: { totals: AttentionResponse['totals'] }) {
  return (
    <p className="flex flex-wrap gap-1.5">
      {(Object.keys(ATTENTION_KIND_STYLE) as Array<keyof typeof ATTENTION_KIND_STYLE>)
        .filter((kind) => totals[kind] > 0)
        .map((kind) => (
          <span key={kind} className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONE_STYLE[ATTENTION_KIND_STYLE[kind].tone].badge}`}>
            <span aria-hidden className="font-mono">
              {ATTENTION_KIND_STYLE[kind].icon}
            </span>
            {formatInteger(totals[kind])} {ATTENTION_KIND_STYLE[kind].label.toLowerCase()}
          </span>
        ))}
    </p>
  )
}

/**
 * One line per mirror and cause ("us-east-to-eu-west · 21 FAILED · source unreachable since 22:23:40 · retry 10"),
 * expandable to its partitions, instead of one identical card per partition.
 */
function AttentionGroupRow({ group, staleAfterMs }: { group: AttentionGroup; staleAfterMs: number }) {
  const look = ATTENTION_KIND_STYLE[group.kind]
  const mirrorHref = `/mirrors/${encodeURIComponent(group.mirror)}`
  const what = group.kind === 'failed' ? 'FAILED' : look.label.toLowerCase()
  return (
    <li data-kind={group.kind} data-cause={group.cause ?? undefined} className="rounded-md border border-slate-200 dark:border-slate-800">
      <details className="group">
        <summary className="flex cursor-pointer list-none gap-2.5 rounded-md p-2.5 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 dark:hover:bg-slate-800/60 [&::-webkit-details-marker]:hidden">
          <span aria-hidden className={`mt-0.5 grid h-6 w-6 shrink-0 place-items-center rounded-full font-mono text-xs ring-1 ring-inset ${TONE_STYLE[look.tone].badge}`}>
            {look.icon}
          </span>
          <span className="min-w-0 flex-1">
            <span className="flex flex-wrap items-baseline gap-x-1.5 text-sm">
              <span className="font-mono font-medium break-all text-slate-900 dark:text-white">{group.mirror}</span>
              <span aria-hidden className="text-slate-400">·</span>
              <span className="font-semibold whitespace-nowrap text-slate-800 dark:text-slate-100">
                {formatInteger(group.partitions)} {what}
              </span>
            </span>
            <span className="mt-0.5 block text-xs text-slate-600 dark:text-slate-300">
              <GroupDetail group={group} staleAfterMs={staleAfterMs} />
            </span>
          </span>
          <span aria-hidden className="mt-0.5 shrink-0 text-xs text-slate-500 transition-transform group-open:rotate-90 dark:text-slate-400">
            ▸
          </span>
        </summary>
        <div className="border-t border-slate-100 px-2.5 py-2 text-xs dark:border-slate-800">
          {group.error !== null && <p className="mb-1.5 break-words text-red-800 dark:text-red-300">{group.error}</p>}
          <ul className="flex flex-wrap gap-1" aria-label={`${group.mirror}: partitions`}>
            {group.examples.map((example) => (
              <li key={`${example.topic}/${example.partition}`}>
                <Link prefetch={false}
                  href={`${mirrorHref}/partitions/${encodeURIComponent(example.topic)}/${example.partition}`}
                  className="inline-block rounded border border-slate-200 px-1.5 py-0.5 font-mono text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-700 dark:text-slate-200 dark:hover:bg-slate-800"
                >
                  {example.topic}-{example.partition}
                </Link>
              </li>
            ))}
          </ul>
          <p className="mt-1.5">
            {group.examples.length < group.partitions && <span className="text-slate-500 dark:text-slate-400">{group.examples.length} of {formatInteger(group.partitions)} shown · </span>}
            <Link prefetch={false} href={mirrorHref} className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300">
              Open {group.mirror}
            </Link>
          </p>
        </div>
      </details>
    </li>
  )
}

function GroupDetail({ group, staleAfterMs }: { group: AttentionGroup; staleAfterMs: number }) {
  switch (group.kind) {
    case 'failed':
      return (
        <>
          <span className="font-medium text-red-800 dark:text-red-300">{group.label}</span> since{' '}
          <span className="tabular-nums">{clockTime(group.since)} UTC</span> (<RelativeTime at={group.since} />)
          {group.retryAttempt > 0 && ` · retry ${group.retryAttempt}`}
          {group.nextRetryAt !== null && (
            <>
              {' · '}
              <NextRetry at={group.nextRetryAt} />
            </>
          )}
          {group.retryAttempt === -1 && ' · not retried: recover by hand'}
        </>
      )
    case 'lagGrowing':
      return (
        <>
          lag growing since <RelativeTime at={group.since} />
        </>
      )
    case 'staleFetch':
      return <>no fetch for over {formatDuration(staleAfterMs)} since <RelativeTime at={group.since} /></>
    case 'paused':
      return (
        <>
          paused since <RelativeTime at={group.since} /> · nothing is mirrored until resumed
        </>
      )
  }
}

function AttentionRow({ item, staleAfterMs }: { item: AttentionItem; staleAfterMs: number }) {
  const look = ATTENTION_KIND_STYLE[item.kind]
  const href = `/mirrors/${encodeURIComponent(item.mirror)}/partitions/${encodeURIComponent(item.topic)}/${item.partition}`
  return (
    <li data-kind={item.kind}>
      <Link prefetch={false}
        href={href}
        className="flex gap-2.5 rounded-md border border-slate-200 p-2.5 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 dark:border-slate-800 dark:hover:bg-slate-800/60"
      >
        <span aria-hidden className={`mt-0.5 grid h-6 w-6 shrink-0 place-items-center rounded-full font-mono text-xs ring-1 ring-inset ${TONE_STYLE[look.tone].badge}`}>
          {look.icon}
        </span>
        <span className="min-w-0 flex-1">
          <span className="flex flex-wrap items-baseline gap-x-2">
            <span className="text-xs font-semibold tracking-wide text-slate-700 uppercase dark:text-slate-200">{look.label}</span>
            <span className="min-w-0 truncate font-mono text-sm font-medium text-slate-900 dark:text-white">
              {item.mirror} / {item.topic}-{item.partition}
            </span>
          </span>
          <span className="mt-0.5 block text-xs break-words text-slate-600 dark:text-slate-300">
            <Detail item={item} staleAfterMs={staleAfterMs} />
          </span>
        </span>
      </Link>
    </li>
  )
}

function Detail({ item, staleAfterMs }: { item: AttentionItem; staleAfterMs: number }) {
  switch (item.kind) {
    case 'failed':
      return (
        <>
          since <RelativeTime at={item.since} />
          {item.retryAttempt > 0 && ` · retry ${item.retryAttempt}`}
          {item.error !== null && <span className="block text-red-800 dark:text-red-300">{item.error}</span>}
        </>
      )
    case 'lagGrowing':
      return (
        <>
          <span title={`${formatOffset(item.offsetLag ?? 0)} records`}>lag {formatCount(item.offsetLag ?? 0)}</span>
          {item.lagGrowth !== null && ` (+${formatCount(item.lagGrowth)})`} · {formatDuration(item.timeLagMs ?? 0)} behind · growing since <RelativeTime at={item.since} />
        </>
      )
    case 'staleFetch':
      return item.lastFetchAt === null ? (
        <>no fetch since it started mirroring <RelativeTime at={item.since} /></>
      ) : (
        <>
          last fetch <RelativeTime at={item.lastFetchAt} /> (over {formatDuration(staleAfterMs)})
        </>
      )
    case 'paused':
      return (
        <>
          {item.state === 'PAUSING' ? 'pausing' : 'paused'} since <RelativeTime at={item.since} /> · nothing is mirrored until it is resumed
        </>
      )
  }
}
