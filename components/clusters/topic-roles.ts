import type { MirrorSummary } from '@/lib/api/mirrors'
import type { Topic } from '@/lib/api/topics'

/** A topic's part in a mirror, seen from this cluster: copied here from another cluster, or copied from here. */
export type TopicRole = { readonly role: 'destination'; readonly mirror: string; readonly otherCluster: string | null } | { readonly role: 'source'; readonly mirror: string; readonly otherCluster: string }

/**
 * The destination role comes from the topic itself (the cluster knows which mirror owns it); the source role
 * from the mirror list, since a source cluster does not know who reads it.
 */
export function topicRoles(cluster: string, topic: Pick<Topic, 'name' | 'mirror'>, mirrors: readonly MirrorSummary[]): TopicRole[] {
  const roles: TopicRole[] = []
  if (topic.mirror !== null) {
    const owner = mirrors.find((mirror) => mirror.name === topic.mirror!.name)
    roles.push({ role: 'destination', mirror: topic.mirror.name, otherCluster: owner?.sourceCluster ?? null })
  }
  for (const mirror of mirrors) {
    if (mirror.sourceCluster === cluster && mirror.topics.includes(topic.name)) roles.push({ role: 'source', mirror: mirror.name, otherCluster: mirror.destinationCluster })
  }
  return roles
}
