import 'server-only'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin } from 'kafkajs'
import type { WriteFence } from '../ports'
import { fencePrincipal, readFencePrincipal } from './fence-marker'

/** Whether the cluster runs an authorizer: DescribeAcls answers SECURITY_DISABLED when it does not. */
export type Authorizer = 'absent' | 'present' | 'unknown'

/** How read-only is kept for one mirror topic: refused by our ACL, or (without one) detected. */
export type TopicWriteGuard = { kind: 'acl' } | { kind: 'detected'; reason: string }

const DENY_EVERYONE = { principal: 'User:*', host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.DENY } as const

function literal(topic: string) {
  return { resourceType: AclResourceTypes.TOPIC, resourceName: topic, resourcePatternType: ResourcePatternTypes.LITERAL }
}

/** WRITE stops produces; DELETE stops DeleteRecords and topic deletion, which WRITE does not cover. */
function denyAcls(topic: string) {
  return [
    { ...literal(topic), ...DENY_EVERYONE },
    { ...literal(topic), ...DENY_EVERYONE, operation: AclOperationTypes.DELETE },
  ]
}

/** The owner's marker beside a switchover fence's DENY (fence-marker.ts): a DENY WRITE for a principal nobody is. */
function markerAcl(topic: string, principal: string) {
  return { ...literal(topic), principal, host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.DENY }
}

function messageOf(error: unknown): string {
  const type = typeof error === 'object' && error !== null && 'type' in error ? String((error as { type: unknown }).type) : ''
  return type || (error instanceof Error ? error.message : String(error))
}

/**
 * Write refusal by ACL where the cluster has an authorizer, one instance per Kafka cluster for its two users:
 *
 * - read-only mirror topics (DESIGN.md §5, the mirror host): a DENY WRITE (and DELETE) for `User:*` on each mirror
 *   topic while it is read-only, removed when it becomes writable (STOPPED, failover). Super users bypass ACLs, so
 *   the mirror's own produces pass when its principal is one (a DENY beats every ALLOW in Kafka: a principal that
 *   is not a super user would refuse its own writes, TOPIC_AUTHORIZATION_FAILED); their writes, and every write on
 *   a cluster without an authorizer, are still detected (log end moved without our produce);
 * - a planned switchover's fence on a source topic (source-write-fence.ts): the same DENYs, plus a marker naming
 *   the mirror, operation and time (fence-marker.ts), so the fences can be listed and one mirror's lifted alone.
 *
 * The same `User:*` DENY can serve both at once (a failback's reverse mirror writes into the fenced old source), so
 * it is deleted only when neither needs it: no fence marker left on the topic, and the host no longer keeps the
 * topic read-only (`readOnlyHeld`, the host's durable record). The ACLs live in the cluster: a restarted server
 * reads them back.
 */
export class WriteDenyAcls {
  private state: Authorizer = 'unknown'
  private readonly guards = new Map<string, TopicWriteGuard>()
  /** The fence markers read or written last, by topic. */
  private readonly fences = new Map<string, WriteFence[]>()
  private readOnlyHeld: (topic: string) => Promise<boolean> = async () => false

  constructor(private readonly admin: Admin) {}

  get authorizer(): Authorizer {
    return this.state
  }

  /** How to ask the mirror host whether it keeps `topic` read-only (set once both sides of the cluster exist). */
  answerReadOnlyFrom(readOnlyHeld: (topic: string) => Promise<boolean>): void {
    this.readOnlyHeld = readOnlyHeld
  }

  async load(): Promise<void> {
    try {
      await this.read()
    } catch (error) {
      this.state = messageOf(error) === 'SECURITY_DISABLED' ? 'absent' : 'unknown'
    }
  }

  /**
   * Reads every DENY WRITE on a literal topic: the `User:*` ones guard their topics, the markers are the fences.
   * Throws what the broker answered (SECURITY_DISABLED without an authorizer).
   */
  private async read(): Promise<void> {
    const { resources } = await this.admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      operation: AclOperationTypes.WRITE,
      permissionType: AclPermissionTypes.DENY,
    })
    this.state = 'present'
    this.fences.clear()
    for (const resource of resources) {
      const topic = resource.resourceName
      for (const acl of resource.acls) {
        if (acl.principal === DENY_EVERYONE.principal && acl.host === DENY_EVERYONE.host) this.guards.set(topic, { kind: 'acl' })
        const fence = readFencePrincipal(topic, acl.principal)
        if (fence !== null) this.fences.set(topic, [...(this.fences.get(topic) ?? []), fence])
      }
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

  /** Lets every client write again (the topic left read-only, or is deleted for a rebuild), unless a switchover's fence still holds it. */
  async allow(topic: string): Promise<void> {
    if (this.state !== 'present' || this.guards.get(topic)?.kind !== 'acl') return
    if ((this.fences.get(topic) ?? []).length > 0) return
    await this.admin.deleteAcls({ filters: denyAcls(topic) })
    this.guards.delete(topic)
  }

  /** The switchover fences in place, read from the cluster now (another server, or one before a restart, may have set them). */
  async listFences(): Promise<WriteFence[]> {
    try {
      await this.read()
    } catch (error) {
      if (messageOf(error) === 'SECURITY_DISABLED') {
        this.state = 'absent'
        return []
      }
      throw error
    }
    return [...this.fences.values()].flat().sort((a, b) => a.topic.localeCompare(b.topic))
  }

  /** Fences `topic` for `mirror`'s switchover (idempotent: a marker of the same mirror and operation is kept as it is). */
  async fence(topic: string, fence: { mirror: string; operation: string; since: number }): Promise<void> {
    const held = this.fences.get(topic) ?? []
    const own = held.find((entry) => entry.mirror === fence.mirror && entry.operation === fence.operation)
    if (own !== undefined && this.guards.get(topic)?.kind === 'acl') return
    const marker = own ?? { topic, ...fence }
    await this.admin.createAcls({ acl: [...denyAcls(topic), markerAcl(topic, fencePrincipal(marker))] })
    this.guards.set(topic, { kind: 'acl' })
    if (own === undefined) this.fences.set(topic, [...held, marker])
  }

  /** Lifts `mirror`'s fences on `topic`: its markers, then the DENY when nothing else holds it. Read from the cluster first. */
  async unfence(topic: string, mirror: string): Promise<void> {
    await this.listFences()
    if (this.state !== 'present') return
    const held = this.fences.get(topic) ?? []
    const own = held.filter((fence) => fence.mirror === mirror)
    const others = held.filter((fence) => fence.mirror !== mirror)
    if (own.length > 0) await this.admin.deleteAcls({ filters: own.map((fence) => markerAcl(topic, fencePrincipal(fence))) })
    if (others.length > 0) this.fences.set(topic, others)
    else this.fences.delete(topic)
    if (own.length === 0 || others.length > 0 || (await this.readOnlyHeld(topic))) return
    await this.admin.deleteAcls({ filters: denyAcls(topic) })
    this.guards.delete(topic)
  }
}
