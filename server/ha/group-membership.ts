import 'server-only'
import { AssignerProtocol, type Consumer, type Kafka, type PartitionAssigner } from 'kafkajs'
import { assignMirrors, type AssignableMirror } from '@/lib/ha/mirror-assignment'
import { decodeMemberInfo, encodeMemberInfo, parseMirrorKey } from '@/lib/ha/member-metadata'

/**
 * Membership of the instances' group through the control cluster's group coordinator, as Kafka Connect's
 * workers keep theirs: kafkajs's consumer joins, heart-beats and rebalances; the leader runs our assigner
 * (lib/ha/mirror-assignment.ts) over the mirrors it reads from the clusters. Every member says who it is and what
 * it runs in its protocol metadata (lib/ha/member-metadata.ts), so the assignment is sticky.
 *
 * How an assignment reaches a member: the leader names each mirror as a "topic" `mirror/<key>` in the member's
 * assignment; kafkajs hands the topics it was not subscribed to through its RECEIVED_UNSUBSCRIBED_TOPICS
 * instrumentation event (and leaves them out of what it fetches), then GROUP_JOIN ends the join. The consumer
 * itself subscribes to the group's control topic and is never given a partition of it: it fetches nothing.
 *
 * A member that cannot heart-beat for a session timeout while the control cluster answers it gives its work up by
 * itself (`onAssignment([])`): by then the coordinator has handed it to the others. One that cannot reach the control
 * cluster at all keeps it (checkHeartbeats).
 */

const ASSIGNER_NAME = 'MirrorboardMirrorAssigner'
const ASSIGNMENT_PREFIX = 'mirror/'

export interface MembershipOptions {
  kafka: Kafka
  groupId: string
  /** A topic of the control cluster the consumer subscribes to (never assigned). */
  topic: string
  instanceId: string
  version: string
  sessionTimeoutMs: number
  /** What the leader assigns: every shared mirror (by key) with its partition count. */
  catalog(): Promise<AssignableMirror[]>
  /** The keys this instance runs now (its protocol metadata). */
  owned(): string[]
  /** Each completed join: the keys this member now runs, and what the group looked like. */
  onAssignment(keys: string[], join: { memberId: string; leaderId: string; isLeader: boolean }): void
  /** The leader's view of the members at each assignment (the instances page). */
  onMembers?(members: Array<{ memberId: string; instanceId: string; version: string; keys: string[] }>): void
  log(message: string, fields: Record<string, unknown>): void
  /**
   * Whether the control cluster answered this instance after `at` (control-health.ts): heartbeats missing while it
   * answers mean the group moved on without this member; missing while nothing answers mean nobody can reach it.
   */
  controlAnsweredSince?(at: number): boolean
  /** Each answered heartbeat (a round trip to the control cluster). */
  onHeartbeat?(): void
}

export class GroupMembership {
  private readonly consumer: Consumer
  private pending: string[] | null = null
  private lastHeartbeatAt = Date.now()
  private holding = false
  private watchdog: NodeJS.Timeout | null = null
  private nudging: Promise<void> | null = null
  private nudgeAgain = false
  private stopped = false
  private keepingLogged = false
  private lastWatchdogAt = 0

  constructor(private readonly options: MembershipOptions) {
    const heartbeatInterval = Math.max(500, Math.floor(options.sessionTimeoutMs / 5))
    this.consumer = options.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: options.sessionTimeoutMs,
      rebalanceTimeout: options.sessionTimeoutMs * 2,
      heartbeatInterval,
      maxWaitTimeInMs: heartbeatInterval,
      partitionAssigners: [this.assigner()],
      allowAutoTopicCreation: false,
    })
    const { events } = this.consumer
    this.consumer.on(events.RECEIVED_UNSUBSCRIBED_TOPICS, (event) => {
      this.pending = event.payload.assignedTopics.filter((topic) => topic.startsWith(ASSIGNMENT_PREFIX)).map((topic) => topic.slice(ASSIGNMENT_PREFIX.length))
    })
    this.consumer.on(events.GROUP_JOIN, (event) => {
      const keys = this.pending ?? []
      this.pending = null
      // Woken after a pause longer than the session timeout, kafkajs may rejoin before the watchdog ticks: the
      // coordinator gave this member's work away meanwhile, so it is given up first, even if the new assignment
      // hands some of it back (then it is adopted afresh, read again from its destination, under a new epoch).
      if (this.holding && Date.now() - this.lastHeartbeatAt >= options.sessionTimeoutMs) {
        this.holding = false
        options.log('rejoined after a session timeout without heartbeats: giving every mirror up before the new assignment', { sinceMs: Date.now() - this.lastHeartbeatAt })
        options.onAssignment([], { memberId: '', leaderId: '', isLeader: false })
      }
      this.lastHeartbeatAt = Date.now()
      this.holding = true
      const { memberId, leaderId, isLeader } = event.payload
      options.log('joined the instances group', { memberId, leaderId, isLeader, mirrors: keys })
      options.onAssignment(keys, { memberId, leaderId, isLeader })
    })
    this.consumer.on(events.HEARTBEAT, () => {
      this.lastHeartbeatAt = Date.now()
      options.onHeartbeat?.()
    })
    // Cut off from the control cluster, kafkajs crashes and restarts the consumer several times a second: logged once a minute.
    let crashLoggedAt = 0
    let crashes = 0
    this.consumer.on(events.CRASH, (event) => {
      crashes += 1
      if (Date.now() - crashLoggedAt < 60_000) return
      options.log('the instances group consumer crashed; kafkajs restarts it', { error: String(event.payload.error), crashes })
      crashLoggedAt = Date.now()
      crashes = 0
    })
  }

  async start(): Promise<void> {
    await this.consumer.connect()
    await this.consumer.subscribe({ topic: this.options.topic, fromBeginning: false })
    await this.consumer.run({ autoCommit: false, eachBatch: async () => {} })
    this.watchdog = setInterval(() => this.checkHeartbeats(), 500)
    this.watchdog.unref()
  }

  /**
   * No heartbeat answered for a session timeout while the control cluster answers this instance otherwise: the
   * coordinator has given this member's work to others. While the control cluster answers nothing at all, the work is
   * kept (mirroring goes on; if the others can reach it and take a mirror over, their transactional ids fence this
   * instance's writes), and given up here as soon as it answers again, or on the rejoin (GROUP_JOIN above).
   */
  private checkHeartbeats(): void {
    const now = Date.now()
    // This process itself stood still (SIGSTOP, a VM paused, a stop-the-world pause) when the watchdog's own ticks
    // stopped for half a session timeout: it has no evidence that nobody can reach the control cluster, only that it
    // did not try. The group has most likely moved on; keeping its mirrors would make it a zombie that runs them on.
    const frozen = this.lastWatchdogAt !== 0 && now - this.lastWatchdogAt >= this.options.sessionTimeoutMs / 2
    this.lastWatchdogAt = now
    if (!this.holding || now - this.lastHeartbeatAt < this.options.sessionTimeoutMs) return
    // An answer well after the last heartbeat (half a session timeout: not one that was in flight with it).
    if (!frozen && this.options.controlAnsweredSince && !this.options.controlAnsweredSince(this.lastHeartbeatAt + this.options.sessionTimeoutMs / 2)) {
      if (!this.keepingLogged) this.options.log('no heartbeat for a session timeout and the control cluster does not answer: keeping the mirrors running here', { sinceMs: Date.now() - this.lastHeartbeatAt })
      this.keepingLogged = true
      return
    }
    this.keepingLogged = false
    this.holding = false
    this.options.log('no heartbeat for a session timeout: giving up every mirror until the group takes this instance back', { sinceMs: Date.now() - this.lastHeartbeatAt })
    this.options.onAssignment([], { memberId: '', leaderId: '', isLeader: false })
  }

  /**
   * Makes the group rebalance now (a mirror was created here, so the leader should place it), as a member joining
   * would: kafkajs offers no way to rejoin at will, so a short-lived member with our protocol joins (every member
   * rejoins, the leader assigns, this member is given nothing: lib/ha/mirror-assignment.ts) and leaves again, which
   * ends in a second, sticky rebalance. Requests made while one runs are served by one more afterwards.
   */
  requestRebalance(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.nudging) {
      this.nudgeAgain = true
      return this.nudging
    }
    this.nudging = (async () => {
      do {
        this.nudgeAgain = false
        await this.nudgeOnce().catch((error: unknown) => this.options.log('could not ask the instances group to rebalance', { error: String(error) }))
      } while (this.nudgeAgain && !this.stopped)
    })().finally(() => (this.nudging = null))
    return this.nudging
  }

  private async nudgeOnce(): Promise<void> {
    const { sessionTimeoutMs } = this.options
    const nudge = this.options.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: sessionTimeoutMs,
      rebalanceTimeout: sessionTimeoutMs * 2,
      heartbeatInterval: Math.max(500, Math.floor(sessionTimeoutMs / 5)),
      partitionAssigners: [this.assigner(true)],
      allowAutoTopicCreation: false,
    })
    let joined: () => void = () => {}
    const join = new Promise<void>((resolve) => (joined = resolve))
    nudge.on(nudge.events.GROUP_JOIN, () => joined())
    try {
      await nudge.connect()
      await nudge.subscribe({ topic: this.options.topic, fromBeginning: false })
      await nudge.run({ autoCommit: false, eachBatch: async () => {} })
      let timer: NodeJS.Timeout | undefined
      await Promise.race([join, new Promise<void>((resolve) => (timer = setTimeout(resolve, sessionTimeoutMs * 3)))])
      clearTimeout(timer)
    } finally {
      await nudge.disconnect().catch(() => undefined)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.nudging
    if (this.watchdog) clearInterval(this.watchdog)
    // Leaving the group (LeaveGroup) hands the work over at once instead of after a session timeout.
    await this.consumer.disconnect().catch(() => undefined)
  }

  /** Our assigner; `rebalanceRequest`: as a short-lived member that only makes the group rebalance. */
  private assigner(rebalanceRequest = false): PartitionAssigner {
    const options = this.options
    return () => ({
      name: ASSIGNER_NAME,
      version: 1,
      async assign({ members }) {
        const decoded = members.map((member) => {
          const metadata = AssignerProtocol.MemberMetadata.decode(member.memberMetadata)
          const info = metadata ? decodeMemberInfo(metadata.userData.toString('utf8')) : null
          return { memberId: member.memberId, instanceId: info?.instanceId ?? member.memberId, version: info?.version ?? 'unknown', owned: info?.owned ?? [], rebalanceRequest: info?.rebalanceRequest === true }
        })
        const mirrors = await options.catalog()
        const assignment = assignMirrors(mirrors, decoded)
        options.onMembers?.(decoded.filter((member) => !member.rebalanceRequest).map((member) => ({ memberId: member.memberId, instanceId: member.instanceId, version: member.version, keys: assignment.get(member.memberId) ?? [] })))
        return [...assignment].map(([memberId, keys]) => ({
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: 1,
            assignment: Object.fromEntries(keys.filter((key) => parseMirrorKey(key) !== null).map((key) => [`${ASSIGNMENT_PREFIX}${key}`, [0]])),
            userData: Buffer.alloc(0),
          }),
        }))
      },
      protocol({ topics }) {
        return {
          name: ASSIGNER_NAME,
          metadata: AssignerProtocol.MemberMetadata.encode({
            version: 1,
            topics,
            userData: Buffer.from(
              encodeMemberInfo(rebalanceRequest ? { instanceId: options.instanceId, version: options.version, owned: [], rebalanceRequest: true } : { instanceId: options.instanceId, version: options.version, owned: options.owned() }),
            ),
          }),
        }
      },
    })
  }
}
