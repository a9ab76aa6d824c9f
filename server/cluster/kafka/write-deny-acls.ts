import 'server-only'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin } from 'kafkajs'

/** Whether the cluster runs an authorizer: DescribeAcls answers SECURITY_DISABLED when it does not. */
export type Authorizer = 'absent' | 'present' | 'unknown'

/** How read-only is kept for one mirror topic: refused by our ACL, or (without one) detected. */
export type TopicWriteGuard = { kind: 'acl' } | { kind: 'detected'; reason: string }

const DENY_EVERYONE = { principal: 'User:*', host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.DENY } as const

/** WRITE stops produces; DELETE stops DeleteRecords and topic deletion, which WRITE does not cover. */
function denyAcls(topic: string) {
  const pattern = { resourceType: AclResourceTypes.TOPIC, resourceName: topic, resourcePatternType: ResourcePatternTypes.LITERAL }
  return [
    { ...pattern, ...DENY_EVERYONE },
    { ...pattern, ...DENY_EVERYONE, operation: AclOperationTypes.DELETE },
  ]
}

function messageOf(error: unknown): string {
  const type = typeof error === 'object' && error !== null && 'type' in error ? String((error as { type: unknown }).type) : ''
  return type || (error instanceof Error ? error.message : String(error))
}

/**
 * Read-only by ACL where the cluster has an authorizer (DESIGN.md §5): a DENY WRITE (and DELETE) for `User:*` on
 * each mirror topic while it is read-only, removed when it becomes writable (STOPPED, failover). Super users bypass ACLs, so
 * the mirror's own produces pass when its principal is one (a DENY beats every ALLOW in Kafka: a principal that is
 * not a super user would refuse its own writes, TOPIC_AUTHORIZATION_FAILED); their writes, and every write on a
 * cluster without an authorizer, are still detected (log end moved without our produce). The ACLs live in the
 * cluster: a restarted server reads them back.
 */
export class WriteDenyAcls {
  private state: Authorizer = 'unknown'
  private readonly guards = new Map<string, TopicWriteGuard>()

  constructor(private readonly admin: Admin) {}

  get authorizer(): Authorizer {
    return this.state
  }

  async load(): Promise<void> {
    try {
      const { resources } = await this.admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourcePatternType: ResourcePatternTypes.LITERAL, ...DENY_EVERYONE })
      this.state = 'present'
      for (const resource of resources) this.guards.set(resource.resourceName, { kind: 'acl' })
    } catch (error) {
      this.state = messageOf(error) === 'SECURITY_DISABLED' ? 'absent' : 'unknown'
    }
  }

  guardOf(topic: string): TopicWriteGuard {
    return this.guards.get(topic) ?? { kind: 'detected', reason: this.state === 'absent' ? 'the cluster has no authorizer' : 'no DENY WRITE ACL could be read or applied' }
  }

  /** Refuses writes by other clients; a refusal of the ACL itself leaves the topic detected, with the broker's reason. */
  async deny(topic: string): Promise<void> {
    // A first look that failed for a passing reason (a timeout on a busy broker) must not leave every later
    // mirror topic unguarded: it is asked again before each topic that needs the ACL.
    if (this.state === 'unknown') await this.load()
    if (this.state !== 'present' || this.guards.get(topic)?.kind === 'acl') return
    try {
      await this.admin.createAcls({ acl: denyAcls(topic) })
      this.guards.set(topic, { kind: 'acl' })
    } catch (error) {
      this.guards.set(topic, { kind: 'detected', reason: `the DENY WRITE ACL was refused (${messageOf(error)})` })
    }
  }

  /** Lets every client write again (the topic left read-only, or is deleted for a rebuild). */
  async allow(topic: string): Promise<void> {
    if (this.state !== 'present' || this.guards.get(topic)?.kind !== 'acl') return
    await this.admin.deleteAcls({ filters: denyAcls(topic) })
    this.guards.delete(topic)
  }
}
