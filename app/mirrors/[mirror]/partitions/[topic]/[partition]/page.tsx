import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { headers } from 'next/headers'
import { notFound } from 'next/navigation'
import { dehydrateAnswers, type Prefetched } from '@/components/data/prefetch'
import { PartitionView } from '@/components/partition/partition-view'
import { mirrorRequest, partitionHistoryRequest, partitionSnapshotRequest, recordsRequest } from '@/components/partition/queries'
import { Name } from '@/lib/api/common'
import { VerificationParams } from '@/lib/api/verifications'
import { DEFAULT_LOG_WINDOW_SIZE, firstScreenRead, isLogWindowSize, logBounds, recordsRead, resolveWindow, storyFocus, type LogWindowSize } from '@/lib/ui/log-strip'
import { looksLikePhone } from '@/lib/ui/phone-guess'
import { partitionSnapshot } from '@/server/api/partition-snapshot'
import { clusterApiOf } from '@/server/api/cluster-api'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { toProblem } from '@/server/http/problem'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'
import { ownersPartitions } from '@/server/pages/mirror-lookup'
import { getRuntime } from '@/server/runtime'

interface RouteParams {
  mirror: string
  topic: string
  partition: string
}

type SearchParams = Record<string, string | string[] | undefined>

export async function generateMetadata({ params }: { params: Promise<RouteParams> }): Promise<Metadata> {
  const { mirror, topic, partition } = await params
  return { title: `${decodeURIComponent(mirror)} / ${decodeURIComponent(topic)} / ${decodeURIComponent(partition)}` }
}

/**
 * The partition page: checks the session and that the partition exists (a real 404 otherwise), computes the
 * first answers with the same server functions the API routes call, and hands them to the client view.
 * `?offset=N` opens the tapes around offset N with it selected; `?size=50|200|1000` sets the page of offsets;
 * `?verification=v-…` marks that verification's mismatches on the destination tape.
 */
export default async function PartitionPage({ params, searchParams }: { params: Promise<RouteParams>; searchParams: Promise<SearchParams> }) {
  const raw = await params
  const mirror = decodeURIComponent(raw.mirror)
  const topic = decodeURIComponent(raw.topic)
  const partitionText = decodeURIComponent(raw.partition)
  const session = await requirePageSession(`/mirrors/${encodeURIComponent(mirror)}/partitions/${encodeURIComponent(topic)}/${encodeURIComponent(partitionText)}`)
  if (!Name.safeParse(mirror).success || !Name.safeParse(topic).success || !/^\d{1,10}$/.test(partitionText)) notFound()
  const refusal = scopeRefusal(session, { mirror })
  if (refusal !== null) return <OutOfScope what={`Mirror ${mirror}`} reason={refusal} />
  const partition = Number(partitionText)
  const search = await searchParams
  const selection = single(search.offset)
  const initialSelection = selection !== undefined && /^\d{1,16}$/.test(selection) ? Number(selection) : null
  const sizeText = Number(single(search.size))
  const initialSize: LogWindowSize = isLogWindowSize(sizeText) ? sizeText : DEFAULT_LOG_WINDOW_SIZE
  const verificationText = single(search.verification)
  const verification = verificationText !== undefined && VerificationParams.safeParse({ id: verificationText }).success ? verificationText : null

  // The tapes' first screen at a phone's width: drawn for a wide screen, a phone removed two thirds of its cells while hydrating.
  const requestHeaders = await headers()
  const phone = looksLikePhone(requestHeaders.get('user-agent'), requestHeaders.get('sec-ch-ua-mobile'))
  const runtime = await getRuntime()
  const api = mirrorApiOf(runtime)
  const clusterApi = clusterApiOf(runtime)
  const here = lookup(() => api.get(mirror))
  // Several instances: a mirror another instance runs is read from it (server/pages/mirror-lookup.ts), as the person.
  // An owner that cannot be asked: the browser asks the API and shows its MIRROR_OWNER_UNAVAILABLE with a retry.
  const owners = here === 'notFound' ? await ownersPartitions(mirror, topic, session.principal).catch(() => 'unavailable' as const) : null
  const elsewhere = owners === 'unavailable' ? null : owners
  const mirrorValue = owners === 'unavailable' ? undefined : (elsewhere?.mirror ?? here)
  const partitions = owners === 'unavailable' ? undefined : (elsewhere?.partitions ?? lookup(() => api.partitions(mirror, { topic })))
  if (mirrorValue === 'notFound' || partitions === 'notFound') notFound()
  const found = partitions?.find((entry) => entry.partition === partition)
  if (partitions !== undefined && found === undefined) notFound()

  // First answers, each on its own: one that fails is left to the client, which shows its error with a retry.
  const answers: Prefetched[] = []
  if (mirrorValue !== undefined) answers.push({ ...mirrorRequest(mirror), value: mirrorValue })
  // (Elsewhere, the browser reads the history and the snapshot through the API, which asks the owner.)
  const history = owners !== null ? undefined : lookup(() => api.history(mirror, topic, partition))
  if (history !== undefined && history !== 'notFound') answers.push({ ...partitionHistoryRequest(mirror, topic, partition), value: history })
  const snapshot = owners !== null || found === undefined ? undefined : await settle(partitionSnapshot(runtime, mirror, topic, partition))
  if (mirrorValue !== undefined && snapshot !== undefined) {
    answers.push({ ...partitionSnapshotRequest(mirror, topic, partition), value: snapshot })
    const clusters = [mirrorValue.sourceCluster, mirrorValue.destinationCluster]
    const extents = [snapshot.source, snapshot.destination]
    const bounds = logBounds(extents)
    const anchor = initialSelection === null ? ({ kind: 'auto' } as const) : ({ kind: 'around', offset: initialSelection } as const)
    const focus = storyFocus(snapshot.partition, initialSize)
    const window = resolveWindow(anchor, initialSize, bounds, focus)
    // Only the first screen of records comes with the HTML, where the tapes open (the story's point when the page
    // chose the window, as PartitionLogs' openAt); the browser reads the whole window itself. 1,000 offsets inline
    // were most of a 460 kB page.
    await Promise.all(
      clusters.map(async (cluster, index) => {
        const extent = extents[index] ?? null
        const windowRead = extent === null ? null : recordsRead(window, extent)
        if (windowRead === null) return
        const read = firstScreenRead(windowRead, anchor.kind === 'auto' ? focus : null)
        const records = await settle(clusterApi.readRecords(cluster, topic, partition, { ...read, isolation: 'read_uncommitted' }))
        if (records !== undefined) answers.push({ ...recordsRequest(cluster, topic, partition, read), value: records })
      }),
    )
  }

  return (
    <HydrationBoundary state={dehydrateAnswers(answers)}>
      <PartitionView mirror={mirror} topic={topic} partition={partition} initialSelection={initialSelection} initialSize={initialSize} verification={verification} phone={phone} />
    </HydrationBoundary>
  )
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The answer, 'notFound' for a 404, undefined for any other failure (the client will show it). */
function lookup<T>(read: () => T): T | 'notFound' | undefined {
  try {
    return read()
  } catch (error) {
    return toProblem(error).status === 404 ? 'notFound' : undefined
  }
}

async function settle<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise
  } catch {
    return undefined
  }
}
