import 'server-only'
import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import type { TransitionContext } from '@/lib/mirror/transition'
import type { EngineClusters } from '../cluster-access'
import type { MirrorDefinition } from '../types'

/** What `transition()` reads besides the partition: the clock, jitter, the mirror's retry settings and the topic's ULE flag. */
export function transitionContext(clusters: EngineClusters, now: number, random: () => number, mirror: MirrorDefinition, topic: string | null): TransitionContext {
  const configs = topic === null ? {} : clusters.destinationTopicConfig(mirror.destinationCluster, topic)
  return {
    now,
    random,
    retryConfig: {
      initialBackoffMs: mirror.config['mirror.failed.retry.initial.backoff.ms'],
      maxBackoffMs: mirror.config['mirror.failed.retry.max.backoff.ms'],
      maxAttempts: mirror.config['mirror.failed.retry.max.attempts'],
    },
    mirrorSupportUncleanLeaderElection: configs[MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION] === 'true',
  }
}
