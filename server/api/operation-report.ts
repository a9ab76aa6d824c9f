import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { OperationReport } from '@/lib/api/operation-report'
import { buildOperationReport, type PartitionOutcome } from '@/lib/failover/report'
import { failoverReportMarkdown } from '@/lib/failover/report-markdown'
import type { ClusterClient } from '@/server/cluster/cluster-client'
import { toOperation } from './mirror-api'
import { reportContext, type ReportContextSources } from './report-context'
import type { MirrorEngine } from '../engine/engine'

/** Destination partitions read at once while building a report (each read is a few records). */
const READ_CONCURRENCY = 64

/**
 * The report of an operation (GET /operations/{id}/report), with each partition's markers read back
 * from the destination log at and after its last mirror position: what the stop wrote, not what the
 * plan predicted. The log is read through the cluster's client, so a Kafka destination reports its markers
 * too; a partition whose log cannot be read (its cluster unreachable or gone) says why in `markersUnread`.
 */
export async function buildReport(
  runtime: { engine: MirrorEngine; clusters: { client(name: string): Pick<ClusterClient, 'readRecords'> } & ReportContextSources['clusters'] } & Omit<ReportContextSources, 'clusters'>,
  id: string,
  now = Date.now(),
): Promise<OperationReport> {
  const { engine } = runtime
  const operation = engine.getOperation(id)
  const apiOperation = { ...toOperation(operation), plan: operation.plan }
  const definition = engine.listMirrors().find((mirror) => mirror.name === operation.mirror) ?? null
  const snapshots = TopicPartitionMap.of(definition === null ? [] : engine.partitions(definition.name).map((snapshot) => [snapshot, snapshot] as const))
  const planned = TopicPartitionMap.of(operation.plan.partitions.map((partition) => [partition, partition.transactionsToAbort.length] as const))
  const outcomes: PartitionOutcome[] = []
  const queue = [...operation.partitions]
  const worker = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const snapshot = snapshots.get(entry)
      if (definition === null || snapshot === undefined) continue
      const position = snapshot.lastMirrorPosition
      // The stop appends one marker per open transaction and one reset; a few more cover a transaction
      // that opened between the plan and the fetcher's removal.
      const limit = (planned.get(entry) ?? 0) + 8
      let records: PartitionOutcome['records'] = []
      let markersUnread: string | undefined
      try {
        const page = await runtime.clusters.client(definition.destinationCluster).readRecords(entry.topic, entry.partition, {
          fromOffset: Math.max(0, position?.offset ?? 0),
          limit,
          isolation: 'read_uncommitted',
        })
        records = page.records.map(({ offset, type, producerId, producerEpoch }) => ({ offset, type, producerId, producerEpoch }))
      } catch (error) {
        const code = typeof error === 'object' && error !== null && 'code' in error ? `${String((error as { code: unknown }).code)}: ` : ''
        markersUnread = `${code}${error instanceof Error ? error.message : String(error)}`
      }
      outcomes.push({
        topic: entry.topic,
        partition: entry.partition,
        lastMirrorPosition: position,
        destinationLeaderEpoch: snapshot.destinationLeaderEpoch,
        records,
        ...(markersUnread === undefined ? {} : { markersUnread }),
        transitions: engine.partitionHistory(definition.name, entry.topic, entry.partition).map(({ from, to, at, reason }) => ({ from, to, at, reason })),
      })
    }
  }
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, Math.max(1, queue.length)) }, worker))
  return buildOperationReport({
    operation: apiOperation,
    sourceCluster: definition?.sourceCluster ?? null,
    destinationCluster: definition?.destinationCluster ?? null,
    // The person's name when they signed in through the identity provider, else the token's actor.
    confirmedBy: operation.requestedBy?.actorName ?? operation.requestedBy?.actor ?? null,
    forcedGates: operation.forcedGates ?? [],
    outcomes,
    generatedAt: now,
    ...(await reportContext(runtime, operation, definition)),
  })
}

/**
 * The report as asked: the JSON of the catalog, or the Markdown post-mortem as a download (the operation page's
 * link saves it under a name that says what it is).
 */
export function reportResponse(report: OperationReport, format: 'json' | 'md'): OperationReport | Response {
  if (format === 'json') return report
  return new Response(failoverReportMarkdown(report), {
    headers: {
      'Content-Type': 'text/markdown; charset=utf-8',
      'Content-Disposition': `attachment; filename="failover-report-${report.operation.id}.md"`,
      'Cache-Control': 'no-store',
    },
  })
}
