import 'server-only'
import type { Admin } from 'kafkajs'
import { ClusterError } from '../errors'
import type { WriteFenceMethod } from '../ports'
import { WriteDenyAcls } from './write-deny-acls'

/**
 * A planned switchover's fence on a Kafka source (issue #34): DENY WRITE (and DELETE) ACLs for User:* on the
 * mirror's topics, where the cluster runs an authorizer (the same ACLs that keep a Kafka destination read-only,
 * write-deny-acls.ts). Producers are then refused by the broker with TOPIC_AUTHORIZATION_FAILED; super users
 * bypass ACLs, which the plan's write-fence gate says. Without an authorizer there is no fence (`none`): the
 * operator stops the producers and the switchover's drain checks that the log ends stand still. The ACLs live
 * in the cluster, so a restarted server finds the fence where it left it.
 */
export class SourceWriteFence {
  private readonly acls: WriteDenyAcls

  constructor(admin: Admin) {
    this.acls = new WriteDenyAcls(admin)
  }

  async method(): Promise<WriteFenceMethod> {
    if (this.acls.authorizer === 'unknown') await this.acls.load()
    return this.acls.authorizer === 'present' ? 'acl' : 'none'
  }

  /** Every topic gets its ACLs, or this throws naming the first that did not (the switchover retries, then rolls back). */
  async fence(topics: readonly string[]): Promise<void> {
    for (const topic of topics) {
      await this.acls.deny(topic)
      const guard = this.acls.guardOf(topic)
      if (guard.kind !== 'acl') throw new ClusterError('CONFLICT', `writes to ${topic} cannot be fenced: ${guard.reason}`, { details: { topic } })
    }
  }

  async unfence(topics: readonly string[]): Promise<void> {
    if (this.acls.authorizer === 'unknown') await this.acls.load()
    for (const topic of topics) await this.acls.allow(topic)
  }
}
