import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { ReportObjectives, ReportVerification } from '@/lib/api/operation-report'
import type { Verification } from '@/lib/api/verifications'
import { objectivesOf } from '@/lib/failover/objectives'
import type { DestinationGroupOffset } from '@/lib/failover/report'
import type { MirrorHost } from '@/server/cluster/ports'
import type { FailoverOperation, MirrorDefinition } from '../engine/types'

/**
 * What a post-mortem adds to the operation's own record (lib/failover/report.ts): the mirror's objectives, the
 * verification that ran after the failover, and where each consumer group resumes on the destination. Each is
 * read as it is now; one that cannot be read is left out rather than failing the report.
 */
export interface ReportContextSources {
  /** Optional: a server without verifications (older callers, tests of the bare report) reports none. */
  verifier?: { ofOperation(id: string): Verification | null }
  clusters: { ports(name: string): { host: Pick<MirrorHost, 'listGroupOffsets'> } }
}

export function verificationOf(found: Verification | null): ReportVerification | null {
  if (found === null) return null
  return {
    id: found.id,
    status: found.status,
    finishedAt: found.finishedAt,
    partitions: found.partitions.map(({ topic, partition, status, summary, identicalUpTo, mismatchCount }) => ({ topic, partition, status, summary, identicalUpTo, mismatchCount })),
  }
}

export async function reportContext(
  sources: ReportContextSources,
  operation: FailoverOperation,
  definition: MirrorDefinition | null,
): Promise<{ objectives: ReportObjectives | null; verification: ReportVerification | null; destinationGroups: DestinationGroupOffset[] }> {
  const wanted = TopicPartitionMap.of(operation.partitions.map((entry) => [entry, true] as const))
  let destinationGroups: DestinationGroupOffset[] = []
  if (definition !== null) {
    try {
      const groups = await sources.clusters.ports(definition.destinationCluster).host.listGroupOffsets()
      destinationGroups = groups.flatMap((group) =>
        group.offsets.filter((o) => wanted.has(o)).map((o) => ({ groupId: group.groupId, topic: o.topic, partition: o.partition, offset: o.offset })),
      )
    } catch {
      destinationGroups = []
    }
  }
  return {
    objectives: definition === null ? null : objectivesOf(definition.config),
    verification: verificationOf(sources.verifier?.ofOperation(operation.id) ?? null),
    destinationGroups,
  }
}
