import 'server-only'
import type { Mirror } from '@/lib/api/mirrors'
import { defaultReverseMirrorName } from '@/lib/failover/failback'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { getRuntime } from '@/server/runtime'

/**
 * What the failback page needs to know first: a failback mirror that already runs (the new source back to
 * the old one over these topics, not all STOPPED: the wizard resumes at its progress), and a free name to
 * propose for a new one.
 */
export async function failbackContext(mirror: Mirror): Promise<{ existingReverse: string | null; defaultReverseName: string }> {
  const mirrors = mirrorApiOf(await getRuntime()).list().mirrors
  const topics = new Set(mirror.topics)
  const existing = mirrors.find((candidate) => {
    if (candidate.sourceCluster !== mirror.destinationCluster || candidate.destinationCluster !== mirror.sourceCluster) return false
    if (!candidate.topics.some((topic) => topics.has(topic))) return false
    const counts = Object.entries(candidate.partitionsByState)
    return counts.some(([state, count]) => state !== 'STOPPED' && (count ?? 0) > 0)
  })
  return { existingReverse: existing?.name ?? null, defaultReverseName: defaultReverseMirrorName(mirror.name, mirrors.map((candidate) => candidate.name)) }
}
