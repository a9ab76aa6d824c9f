import 'server-only'
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import type { GroupOffsets, TopicPartition } from '../ports'
import { ClusterError } from '../errors'
import type { Clock } from './clock'
import { DurableJsonFile, readJsonIfExists } from './durable-json'

/**
 * Consumer groups: committed offsets and membership, durable in one JSON document (Kafka keeps both in
 * `__consumer_offsets`). Membership is deliberately simple — join, heartbeat, leave, and expiry after the
 * session timeout — because what mirroring needs is whether a group is active (KIP-1279 §3.6: offsets of
 * groups with active members are never overwritten by a sync).
 */

const MemberSchema = z.object({ memberId: z.string(), sessionTimeoutMs: z.number().int().positive(), lastHeartbeatMs: z.number() })

const CommittedOffsetSchema = z.object({
  topic: z.string(),
  partition: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  leaderEpoch: z.number().int().nullable(),
  commitTimestamp: z.number(),
})

const GroupSchema = z.object({ groupId: z.string(), members: z.array(MemberSchema), offsets: z.array(CommittedOffsetSchema) })

const GroupLogSchema = z.object({ version: z.literal(1), groups: z.array(GroupSchema) })

type Group = z.infer<typeof GroupSchema>
export type CommittedOffset = z.infer<typeof CommittedOffsetSchema>

export interface GroupDescription {
  groupId: string
  /** Kafka's consumer group states as the UI shows them. */
  state: 'Stable' | 'Empty'
  members: string[]
  offsets: Array<TopicPartition & { offset: number; leaderEpoch: number | null }>
}

export function validateGroupId(groupId: unknown): string {
  // Kafka accepts any non-empty group id; control characters are refused so ids stay printable in the UI.
  if (typeof groupId !== 'string' || groupId.length === 0 || groupId.length > 255 || /\p{Cc}/u.test(groupId)) {
    throw new ClusterError('VALIDATION_FAILED', `invalid group id ${JSON.stringify(groupId)}`)
  }
  return groupId
}

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>()
  private readonly file: DurableJsonFile

  private constructor(
    path: string,
    private readonly clock: Clock,
    private readonly defaultSessionTimeoutMs: number,
  ) {
    this.file = new DurableJsonFile(path, () => ({ version: 1, groups: [...this.groups.values()] }))
  }

  static async open(path: string, clock: Clock, options: { sessionTimeoutMs: number }): Promise<GroupCoordinator> {
    const coordinator = new GroupCoordinator(path, clock, options.sessionTimeoutMs)
    const raw = await readJsonIfExists(path)
    if (raw !== undefined) {
      for (const group of GroupLogSchema.parse(raw).groups) coordinator.groups.set(group.groupId, group)
    }
    return coordinator
  }

  private groupFor(groupId: string): Group {
    let group = this.groups.get(groupId)
    if (!group) {
      group = { groupId, members: [], offsets: [] }
      this.groups.set(groupId, group)
    }
    return group
  }

  hasActiveMembers(groupId: string): boolean {
    return (this.groups.get(groupId)?.members.length ?? 0) > 0
  }

  async joinGroup(groupId: string, options: { memberId?: string; sessionTimeoutMs?: number } = {}): Promise<string> {
    validateGroupId(groupId)
    const sessionTimeoutMs = options.sessionTimeoutMs ?? this.defaultSessionTimeoutMs
    if (!Number.isSafeInteger(sessionTimeoutMs) || sessionTimeoutMs <= 0) {
      throw new ClusterError('VALIDATION_FAILED', `session timeout must be a positive integer, got ${sessionTimeoutMs}`)
    }
    if (options.memberId !== undefined && (typeof options.memberId !== 'string' || options.memberId.length === 0 || options.memberId.length > 255)) {
      throw new ClusterError('VALIDATION_FAILED', `invalid member id ${JSON.stringify(options.memberId)}`)
    }
    const memberId = options.memberId ?? `member-${randomUUID()}`
    const group = this.groupFor(groupId)
    const now = this.clock.now()
    const existing = group.members.find((m) => m.memberId === memberId)
    if (existing) {
      existing.lastHeartbeatMs = now
      existing.sessionTimeoutMs = sessionTimeoutMs
    } else {
      group.members.push({ memberId, sessionTimeoutMs, lastHeartbeatMs: now })
    }
    await this.file.save()
    return memberId
  }

  private member(groupId: string, memberId: string) {
    const member = this.groups.get(groupId)?.members.find((m) => m.memberId === memberId)
    if (!member) throw new ClusterError('NOT_FOUND', `member ${JSON.stringify(memberId)} is not in group ${JSON.stringify(groupId)}`)
    return member
  }

  /** Keeps a member alive; heartbeats are not made durable (a restart gives members a fresh session at worst). */
  heartbeat(groupId: string, memberId: string): void {
    this.member(groupId, memberId).lastHeartbeatMs = this.clock.now()
  }

  async leaveGroup(groupId: string, memberId: string): Promise<void> {
    this.member(groupId, memberId)
    const group = this.groups.get(groupId)!
    group.members = group.members.filter((m) => m.memberId !== memberId)
    await this.file.save()
  }

  /**
   * Commits offsets (validated by the caller against the topics). A group with active members accepts commits
   * from its members only, as Kafka's coordinator refuses a non-member (UNKNOWN_MEMBER_ID).
   */
  async commitOffsets(groupId: string, offsets: ReadonlyArray<TopicPartition & { offset: number; leaderEpoch?: number | null }>, options: { memberId?: string } = {}): Promise<void> {
    validateGroupId(groupId)
    const group = this.groups.get(groupId)
    if (group && group.members.length > 0) {
      if (options.memberId === undefined || !group.members.some((m) => m.memberId === options.memberId)) {
        throw new ClusterError('CONFLICT', `group ${JSON.stringify(groupId)} has active members; only they may commit its offsets`, { details: { groupId } })
      }
      this.heartbeat(groupId, options.memberId)
    }
    this.applyCommits(this.groupFor(groupId), offsets)
    await this.file.save()
  }

  /** The mirror's offset sync: refused (false) while the group has active members. */
  async commitSyncedOffset(groupId: string, topicPartition: TopicPartition, offset: number, leaderEpoch: number | null): Promise<boolean> {
    validateGroupId(groupId)
    if (this.hasActiveMembers(groupId)) return false
    this.applyCommits(this.groupFor(groupId), [{ ...topicPartition, offset, leaderEpoch }])
    await this.file.save()
    return true
  }

  private applyCommits(group: Group, offsets: ReadonlyArray<TopicPartition & { offset: number; leaderEpoch?: number | null }>): void {
    const now = this.clock.now()
    for (const o of offsets) {
      const entry: CommittedOffset = { topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch ?? null, commitTimestamp: now }
      const index = group.offsets.findIndex((e) => e.topic === o.topic && e.partition === o.partition)
      if (index >= 0) group.offsets[index] = entry
      else group.offsets.push(entry)
    }
  }

  committedOffset(groupId: string, topicPartition: TopicPartition): CommittedOffset | undefined {
    const entry = this.groups.get(groupId)?.offsets.find((e) => e.topic === topicPartition.topic && e.partition === topicPartition.partition)
    return entry && { ...entry }
  }

  listGroupOffsets(): GroupOffsets[] {
    return [...this.groups.values()]
      .sort((a, b) => a.groupId.localeCompare(b.groupId))
      .map((g) => ({
        groupId: g.groupId,
        hasActiveMembers: g.members.length > 0,
        offsets: g.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch })),
      }))
  }

  describeGroups(): GroupDescription[] {
    return [...this.groups.values()]
      .sort((a, b) => a.groupId.localeCompare(b.groupId))
      .map((g) => ({
        groupId: g.groupId,
        state: g.members.length > 0 ? 'Stable' : 'Empty',
        members: g.members.map((m) => m.memberId),
        offsets: g.offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch })),
      }))
  }

  /** Session expiry (tick): members that stopped heartbeating leave. */
  async expireMembers(): Promise<void> {
    const now = this.clock.now()
    let changed = false
    for (const group of this.groups.values()) {
      const alive = group.members.filter((m) => now - m.lastHeartbeatMs <= m.sessionTimeoutMs)
      if (alive.length !== group.members.length) {
        group.members = alive
        changed = true
      }
    }
    if (changed) await this.file.save()
  }

  /** A deleted topic's committed offsets go with it (Kafka's GroupMetadataManager does the same). */
  async forgetTopic(topic: string): Promise<void> {
    let changed = false
    for (const group of this.groups.values()) {
      const kept = group.offsets.filter((o) => o.topic !== topic)
      if (kept.length !== group.offsets.length) {
        group.offsets = kept
        changed = true
      }
    }
    if (changed) await this.file.save()
  }
}
