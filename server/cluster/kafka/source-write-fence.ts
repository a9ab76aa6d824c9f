import 'server-only'
import { ClusterError } from '../errors'
import type { WriteFence, WriteFenceMethod } from '../ports'
import type { WriteDenyAcls } from './write-deny-acls'

/**
 * A planned switchover's fence on a Kafka source (issue #34): DENY WRITE (and DELETE) ACLs for User:* on the
 * mirror's topics, where the cluster runs an authorizer (the same ACLs that keep a Kafka destination read-only,
 * write-deny-acls.ts), with a marker ACL naming the mirror and operation (fence-marker.ts) so the fences can be
 * listed, and lifted by a failback or an unfence exactly as they were set. Producers are then refused by the
 * broker with TOPIC_AUTHORIZATION_FAILED; super users bypass ACLs, which the plan's write-fence gate says.
 * Without an authorizer there is no fence (`none`): the operator stops the producers and the switchover's drain
 * checks that the log ends stand still. The ACLs live in the cluster, so a restarted server finds the fence where
 * it left it.
 */
export class SourceWriteFence {
  constructor(
    private readonly acls: WriteDenyAcls,
    private readonly now: () => number = Date.now,
  ) {}

  async method(): Promise<WriteFenceMethod> {
    if (this.acls.authorizer === 'unknown') await this.acls.load()
    return this.acls.authorizer === 'present' ? 'acl' : 'none'
  }

  /** Every topic gets its ACLs, or this throws naming the first that did not (the switchover retries, then rolls back). */
  async fence(topics: readonly string[], fence: { mirror: string; operation: string }): Promise<void> {
    // The markers already there are read first, so a repeated fence (a retry, a restart) keeps its first time.
    await this.acls.listFences()
    const since = this.now()
    for (const topic of topics) {
      if (this.acls.authorizer !== 'present') {
        const why = this.acls.authorizer === 'absent' ? 'the cluster has no authorizer' : 'its ACLs could not be read'
        throw new ClusterError('CONFLICT', `writes to ${topic} cannot be fenced: ${why}`, { details: { topic } })
      }
      try {
        await this.acls.fence(topic, { ...fence, since })
      } catch (error) {
        throw new ClusterError('CONFLICT', `writes to ${topic} cannot be fenced: the DENY WRITE ACL was refused (${error instanceof Error ? error.message : String(error)})`, { details: { topic }, cause: error })
      }
    }
  }

  /** Lifts `mirror`'s fences on these topics; a fence of another mirror, and a mirror topic's read-only, stay. */
  async unfence(topics: readonly string[], mirror: string): Promise<void> {
    for (const topic of topics) await this.acls.unfence(topic, mirror)
  }

  /** The fences in place, read from the cluster; none without an authorizer. */
  list(): Promise<WriteFence[]> {
    return this.acls.listFences()
  }
}
