'use client'

import Link from 'next/link'
import { useMirrorSplitBrainWatch, useSplitBrainWatch } from '@/components/data/use-mirrors'
import { RelativeTime } from '@/components/ui/relative-time'
import type { MirrorSummary } from '@/lib/api/mirrors'
import type { SplitBrainFailover } from '@/lib/api/split-brain'
import { clockTime, dateTime, formatCount } from '@/lib/ui/format'
import { requesterName } from '@/lib/ui/requester-name'

/**
 * The split-brain guard (for the overview, the mirror page and the operation page): records written to the
 * old source of a failed-over mirror since the failover, per topic with the latest time. Producers still
 * writing there is the classic DR accident, and a failback truncates what they wrote.
 *
 * `<SplitBrainNotice />` lists every mirror with such writes and renders nothing when there are none;
 * `<SplitBrainNotice mirror="dr" showQuiet />` is about one mirror and also says when its old source is
 * quiet. The first reads the mirror summaries (their `splitBrain`), the second the one mirror's own answer; each
 * re-reads every 2 s while a mirror is being watched (or has STOPPED partitions).
 */
export function SplitBrainNotice({ mirror, showQuiet = false }: { mirror?: string; showQuiet?: boolean }) {
  return mirror === undefined ? <EveryMirrorNotice showQuiet={showQuiet} /> : <OneMirrorNotice mirror={mirror} showQuiet={showQuiet} />
}

/** The overview's: every mirror, from the mirror list. */
function EveryMirrorNotice({ showQuiet }: { showQuiet: boolean }) {
  const list = useSplitBrainWatch()
  return <SplitBrainView summaries={list.data?.mirrors ?? []} showQuiet={showQuiet} />
}

/** One mirror's, from its own answer (GET /mirrors/{mirror} carries `splitBrain` too). */
function OneMirrorNotice({ mirror, showQuiet }: { mirror: string; showQuiet: boolean }) {
  const one = useMirrorSplitBrainWatch(mirror)
  return <SplitBrainView summaries={one.data === undefined ? [] : [one.data]} showQuiet={showQuiet} />
}

function SplitBrainView({ summaries, showQuiet }: { summaries: readonly MirrorSummary[]; showQuiet: boolean }) {
  const mirrors = summaries.filter((summary) => summary.splitBrain != null)
  const written = mirrors.filter((summary) => (summary.splitBrain?.recordsWritten ?? 0) > 0)
  if (written.length === 0) {
    if (!showQuiet || mirrors.length === 0) return null
    const watch = mirrors[0]?.splitBrain
    return (
      <p className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300" data-testid="split-brain-quiet">
        ✓ No records written to the old source <span className="font-mono">{watch?.oldSourceCluster}</span> since the failover
        {watch?.failover != null && (
          <>
            {' '}
            <FailedOverBy failover={watch.failover} />
          </>
        )}
        {watch?.checkedAt != null && (
          <>
            {' '}
            (checked <RelativeTime at={watch.checkedAt} />)
          </>
        )}
        {watch?.sourceReachable === false && ' · the old source does not answer right now'}.
      </p>
    )
  }
  return (
    <section aria-labelledby="split-brain-title" aria-live="polite" className="rounded-lg border border-red-300 bg-red-50 p-4 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-50" data-testid="split-brain">
      <h2 id="split-brain-title" className="font-semibold">
        <span aria-hidden>⚠ </span>Split brain: producers still write to the old source
      </h2>
      <ul className="mt-2 space-y-2 text-sm">
        {written.map((summary) => (
          <SplitBrainMirror key={summary.name} summary={summary} />
        ))}
      </ul>
    </section>
  )
}

function SplitBrainMirror({ summary }: { summary: MirrorSummary }) {
  const watch = summary.splitBrain
  if (watch == null) return null
  return (
    <li data-mirror={summary.name}>
      <p>
        <span className="font-semibold tabular-nums" data-testid="split-brain-count">
          {formatCount(watch.recordsWritten)}
        </span>{' '}
        {watch.recordsWritten === 1 ? 'record was' : 'records were'} written to <span className="font-mono">{watch.oldSourceCluster}</span> since{' '}
        <Link prefetch={false} className="font-mono underline underline-offset-2" href={`/mirrors/${encodeURIComponent(summary.name)}`}>
          {summary.name}
        </Link>{' '}
        failed over (<RelativeTime at={watch.since} />
        {watch.failover != null && (
          <>
            , <FailedOverBy failover={watch.failover} />
          </>
        )}
        )
        {watch.latestWriteAt !== null && (
          <>
            , the latest <RelativeTime at={watch.latestWriteAt} />
          </>
        )}
        . Point those producers at <span className="font-mono">{summary.destinationCluster}</span>; a{' '}
        <Link prefetch={false} className="underline underline-offset-2" href={`/mirrors/${encodeURIComponent(summary.name)}/failback`}>
          failback
        </Link>{' '}
        truncates these records away.
      </p>
      <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-0.5 font-mono text-xs">
        {watch.topics.slice(0, 12).map((topic) => (
          <li key={topic.topic}>
            {topic.topic}: {formatCount(topic.recordsWritten)}
            {topic.latestWriteAt !== null && (
              <>
                {' '}
                · <RelativeTime at={topic.latestWriteAt} />
              </>
            )}
          </li>
        ))}
        {watch.topics.length > 12 && <li>and {watch.topics.length - 12} more topics</li>}
      </ul>
      {(watch.producers ?? []).length > 0 && (
        <div className="mt-1.5">
          <p className="text-xs font-semibold">Written by</p>
          <ul className="mt-0.5 space-y-0.5 text-xs" data-testid="split-brain-producers">
            {(watch.producers ?? []).slice(0, 8).map((producer) => (
              <li key={producer.producerId ?? 'none'} className="font-mono">
                {producer.transactionalId !== null && <span className="font-semibold">{producer.transactionalId} · </span>}
                {producer.producerId === null ? 'producers without a producer id' : `producer id ${producer.producerId} (epoch ${producer.producerEpoch})`}
                {' · '}
                {formatCount(producer.records)} {producer.records === 1 ? 'record' : 'records'} to {producer.topics.join(', ')}
                {producer.latestWriteAt !== null && (
                  <>
                    {' · latest '}
                    <RelativeTime at={producer.latestWriteAt} />
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  )
}

/** "by Alice Example <alice@example.com> at 14:02:03 UTC" (after "… failed over" or "the failover"), linked to the operation. */
function FailedOverBy({ failover }: { failover: SplitBrainFailover }) {
  return (
    <span data-testid="split-brain-failed-over-by">
      by <span className="font-semibold">{requesterName(failover.requestedBy)}</span> at{' '}
      <Link prefetch={false} className="underline underline-offset-2" href={`/operations/${encodeURIComponent(failover.operationId)}`} title={dateTime(failover.startedAt)}>
        {clockTime(failover.startedAt)} UTC
      </Link>
    </span>
  )
}
