'use client'

import Link from 'next/link'
import { useId, useState, type ReactNode } from 'react'
import type { MirrorSummary } from '@/lib/api/mirrors'
import type { Topic } from '@/lib/api/topics'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { StatusBadge } from '@/components/ui/status-badge'
import { topicRoles } from './topic-roles'
import { formatInteger } from '@/lib/ui/format'

/** A cell: a column on a wide screen, a labelled line of the topic's card on a phone (as /mirrors does); its value keeps its own width, so a badge does not stretch across the card. */
const CELL =
  'max-sm:grid max-sm:grid-cols-[6.5rem_minmax(0,1fr)] max-sm:items-baseline max-sm:justify-items-start max-sm:gap-2 max-sm:py-1 max-sm:text-left max-sm:before:text-xs max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:content-[attr(data-label)] dark:max-sm:before:text-slate-400'

export function TopicsPanel({
  cluster,
  topics,
  mirrors,
  error,
  onRetry,
  rowActions,
}: {
  cluster: string
  topics: readonly Topic[] | undefined
  mirrors: readonly MirrorSummary[]
  error: unknown
  onRetry: () => void
  /** Operator controls of a row (components/manage); no column without them. */
  rowActions?: (topic: Topic) => ReactNode
}) {
  const [filter, setFilter] = useState('')
  const filterId = useId()
  const shown = topics?.filter((topic) => topic.name.toLowerCase().includes(filter.trim().toLowerCase()))
  return (
    <Panel
      id="topics"
      title={topics === undefined ? 'Topics' : `Topics (${formatInteger(topics.length)})`}
      actions={
        topics !== undefined &&
        topics.length > 5 && (
          <span className="flex items-center gap-2">
            <label htmlFor={filterId} className="text-xs text-slate-600 dark:text-slate-300">
              Filter
            </label>
            <input
              id={filterId}
              type="search"
              value={filter}
              onChange={(event) => setFilter(event.target.value)}
              placeholder="topic name"
              className="w-40 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-600 dark:bg-slate-800"
            />
          </span>
        )
      }
    >
      {error !== null && topics === undefined ? (
        <ErrorPanel error={error} title="Could not load topics" onRetry={onRetry} compact />
      ) : shown === undefined ? (
        <div className="space-y-2" aria-hidden>
          <Skeleton className="h-6 w-full" />
          <Skeleton className="h-6 w-full" />
          <Skeleton className="h-6 w-3/4" />
        </div>
      ) : topics!.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No topics on this cluster yet.</p>
      ) : (
        <div className="relative -mx-4 overflow-x-auto px-4" tabIndex={0} role="region" aria-label="Topics table">
          {/* relative: the header's sr-only label is absolutely positioned; with no positioned scroll box its
              containing block was the page, so it escaped the box and widened a phone's layout viewport
              (the Manage dialog was centred in that wider viewport, off screen). */}
          {/* Below sm the rows are cards (a labelled line per column): a 576 px table scrolled sideways in its box. */}
          <table className="w-full text-left text-sm max-sm:block sm:min-w-[36rem]">
            <thead className="text-xs text-slate-500 uppercase max-sm:sr-only dark:text-slate-400">
              <tr>
                <th scope="col" className="py-2 pr-3 font-medium">Topic</th>
                <th scope="col" className="py-2 pr-3 text-right font-medium">Partitions</th>
                <th scope="col" className="py-2 pr-3 text-right font-medium">RF</th>
                <th scope="col" className="py-2 pr-3 font-medium">Writes</th>
                <th scope="col" className="py-2 font-medium">Mirror role</th>
                {rowActions !== undefined && (
                  <th scope="col" className="py-2 pl-3 text-right font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 max-sm:block dark:divide-slate-800">
              {shown.map((topic) => (
                <tr key={topic.name} data-topic={topic.name} className="max-sm:block max-sm:py-2">
                  <td className="max-w-[16rem] truncate py-2 pr-3 font-mono text-slate-900 max-sm:block max-sm:max-w-none max-sm:py-1 max-sm:font-medium max-sm:break-all max-sm:whitespace-normal dark:text-white" title={`${topic.name} (id ${topic.topicId})`}>
                    {topic.name}
                  </td>
                  <td data-label="Partitions" className={`py-2 pr-3 text-right tabular-nums ${CELL}`}>{topic.partitions}</td>
                  <td data-label="RF" className={`py-2 pr-3 text-right tabular-nums ${CELL}`}>{topic.replicationFactor}</td>
                  <td data-label="Writes" className={`py-2 pr-3 ${CELL}`}>
                    {topic.readOnly ? (
                      // A mirror topic refuses writes until it is STOPPED: the paused partitions' tone.
                      <StatusBadge look={{ label: 'read-only', icon: '⊘', tone: 'paused' }} />
                    ) : (
                      <span className="text-xs text-slate-600 dark:text-slate-300">writable</span>
                    )}
                  </td>
                  <td data-label="Mirror role" className={`py-2 ${CELL}`}>
                    <MirrorRoles cluster={cluster} topic={topic} mirrors={mirrors} />
                  </td>
                  {rowActions !== undefined && <td className="py-2 pl-3 text-right max-sm:block max-sm:pt-1 max-sm:pl-0 max-sm:text-left">{rowActions(topic)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 && <p className="py-3 text-sm text-slate-600 dark:text-slate-300">No topic matches “{filter}”.</p>}
        </div>
      )}
    </Panel>
  )
}

function MirrorRoles({ cluster, topic, mirrors }: { cluster: string; topic: Topic; mirrors: readonly MirrorSummary[] }) {
  const roles = topicRoles(cluster, topic, mirrors)
  if (roles.length === 0) return <span className="text-xs text-slate-500 dark:text-slate-400">—</span>
  return (
    <ul className="space-y-0.5">
      {roles.map((role) => (
        <li key={`${role.role}:${role.mirror}`} className="text-xs wrap-anywhere sm:whitespace-nowrap">
          <span className="text-slate-600 dark:text-slate-300">{role.role === 'destination' ? 'destination of ' : 'source of '}</span>
          <Link prefetch={false} href={`/mirrors/${encodeURIComponent(role.mirror)}`} className="font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
            {role.mirror}
          </Link>
          {role.otherCluster !== null && (
            <span className="text-slate-500 dark:text-slate-400">
              {role.role === 'destination' ? ` (from ${role.otherCluster})` : ` (to ${role.otherCluster})`}
            </span>
          )}
        </li>
      ))}
    </ul>
  )
}
