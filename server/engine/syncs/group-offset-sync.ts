import 'server-only'
import type { MirrorHost, SourceCluster } from '@/server/cluster/ports'
import { matchesFilters } from '../config/topic-patterns'
import type { EngineMirror } from '../state/engine-mirror'

/**
 * Copies the source's committed offsets of groups matching groups.include to the destination, for groups
 * with no active members there and partitions still MIRRORING, clamped to the destination's log.
 */
export async function syncGroupOffsets(mirror: EngineMirror, source: SourceCluster, host: MirrorHost): Promise<void> {
  const { definition } = mirror
  const [sourceGroups, destinationGroups] = await Promise.all([source.listGroupOffsets(), host.listGroupOffsets()])
  const activeOnDestination = new Set(destinationGroups.filter((group) => group.hasActiveMembers).map((group) => group.groupId))
  const destinationTopics = await host.describeTopics(definition.topics)
  for (const group of sourceGroups) {
    if (activeOnDestination.has(group.groupId)) continue
    if (!matchesFilters(group.groupId, definition.config['groups.include'], definition.config['groups.exclude'])) continue
    for (const committed of group.offsets) {
      const runtime = mirror.partitions.get(committed)
      // Offsets follow only partitions that are mirroring: a stopped topic belongs to its new writers.
      if (!runtime || runtime.value.state !== 'MIRRORING') continue
      const destination = destinationTopics.find((topic) => topic.name === committed.topic)?.partitions.find((p) => p.partition === committed.partition)
      if (!destination) continue
      const clamped = Math.max(destination.logStartOffset, Math.min(committed.offset, destination.logEndOffset))
      const current = destinationGroups.find((candidate) => candidate.groupId === group.groupId)?.offsets.find((o) => o.topic === committed.topic && o.partition === committed.partition)
      if (current?.offset === clamped) continue
      // Unclamped, the offset keeps the source's leader epoch (DLE ≥ SLE makes it valid here); a
      // clamped one points at a different record: it takes the destination's epoch there, and is
      // skipped while that is unknown (KIP-1279.md §3.6).
      const leaderEpoch = clamped === committed.offset ? committed.leaderEpoch : await host.epochForOffset({ topic: committed.topic, partition: committed.partition }, clamped)
      if (leaderEpoch !== null && leaderEpoch < 0) continue
      await host.commitSyncedGroupOffset(group.groupId, { topic: committed.topic, partition: committed.partition }, clamped, leaderEpoch)
    }
  }
}
