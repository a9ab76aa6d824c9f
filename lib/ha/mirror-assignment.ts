/**
 * Which instance runs which mirror (issue #40): the group leader's decision, as Kafka Connect's incremental
 * cooperative assignor makes it for connectors. Pure: the leader passes the mirrors it knows (with their partition
 * counts, the load a mirror puts on an instance) and the members of the group with what each ran before.
 *
 * Sticky first: a member keeps every mirror it ran that still exists (a mirror two members both claim — after a
 * split — stays with the one of them that runs fewer partitions, ties by instance id). Then the mirrors nobody
 * runs (new ones, or those of a member that left) go one by one, biggest first, to the least loaded member. Then
 * balance: a mirror moves from the most loaded member to the least loaded one only while that narrows the gap
 * between them, so a joining member takes over little and a stable group moves nothing.
 *
 * A mirror nobody runs whose creator is a member goes to its creator and stays there this round: the leader read a
 * mirror whose create was still under way (its definition is written first), and another instance adopting it then
 * fenced the creator's writes and failed the create (409 to POST /mirrors). Its creator asks for a rebalance once
 * the create has finished; from then on it is claimed like any other, and balanced.
 */

export interface AssignableMirror {
  name: string
  /** The mirror's partition count: the load it puts on the instance that runs it (at least 1 counted). */
  partitions: number
  /** The instance that created it (MIRRORBOARD_INSTANCE_ID): where it goes while nobody runs it yet. */
  createdOn?: string
}

export interface GroupMember {
  /** Kafka's member id (what the SyncGroup answer is keyed by). */
  memberId: string
  /** MIRRORBOARD_INSTANCE_ID: orders members, so the same inputs always give the same assignment. */
  instanceId: string
  /** The mirrors this member ran under the previous assignment. */
  owned: readonly string[]
  /** A member that joined only to make the group rebalance (a mirror was created): it is given nothing. */
  rebalanceRequest?: boolean
}

/** Member id → the names of the mirrors it runs, sorted; every member appears, with none if it runs none. */
export type MirrorAssignment = Map<string, string[]>

function weight(mirror: AssignableMirror): number {
  return Math.max(1, mirror.partitions)
}

export function assignMirrors(mirrors: readonly AssignableMirror[], members: readonly GroupMember[]): MirrorAssignment {
  const assignment = assignToWorkers(mirrors, members.filter((member) => !member.rebalanceRequest))
  for (const member of members) if (member.rebalanceRequest) assignment.set(member.memberId, [])
  return assignment
}

function assignToWorkers(mirrors: readonly AssignableMirror[], members: readonly GroupMember[]): MirrorAssignment {
  const ordered = [...members].sort((a, b) => compare(a.instanceId, b.instanceId) || compare(a.memberId, b.memberId))
  const byName = new Map(mirrors.map((mirror) => [mirror.name, mirror]))
  const held = new Map<string, Set<string>>(ordered.map((member) => [member.memberId, new Set<string>()]))
  const load = new Map<string, number>(ordered.map((member) => [member.memberId, 0]))
  const owner = new Map<string, string>()
  const give = (memberId: string, mirror: AssignableMirror) => {
    held.get(memberId)!.add(mirror.name)
    load.set(memberId, load.get(memberId)! + weight(mirror))
    owner.set(mirror.name, memberId)
  }
  const take = (memberId: string, mirror: AssignableMirror) => {
    held.get(memberId)!.delete(mirror.name)
    load.set(memberId, load.get(memberId)! - weight(mirror))
    owner.delete(mirror.name)
  }

  // Sticky: each member keeps what it ran, claimed in a fixed order so a doubly claimed mirror is decided the same way everywhere.
  const claims = new Map<string, GroupMember[]>()
  for (const member of ordered) {
    for (const name of new Set(member.owned)) if (byName.has(name)) claims.set(name, [...(claims.get(name) ?? []), member])
  }
  // Uncontested claims first, so a contested mirror goes to whichever claimant then runs less.
  const contested = (name: string) => (claims.get(name)!.length > 1 ? 1 : 0)
  for (const name of [...claims.keys()].sort((a, b) => contested(a) - contested(b) || compare(a, b))) {
    const claimants = claims.get(name)!
    const keeper = claimants.reduce((best, member) => (load.get(member.memberId)! < load.get(best.memberId)! ? member : best))
    give(keeper.memberId, byName.get(name)!)
  }

  const leastLoaded = (): string => ordered.reduce((best, member) => (load.get(member.memberId)! < load.get(best.memberId)! ? member : best)).memberId
  const mostLoaded = (): string => ordered.reduce((best, member) => (load.get(member.memberId)! > load.get(best.memberId)! ? member : best)).memberId

  if (ordered.length > 0) {
    const unowned = mirrors.filter((mirror) => !owner.has(mirror.name)).sort((a, b) => weight(b) - weight(a) || compare(a.name, b.name))
    const creatorOf = (mirror: AssignableMirror) => (mirror.createdOn === undefined ? undefined : ordered.find((member) => member.instanceId === mirror.createdOn))
    const withCreator = new Set<string>()
    for (const mirror of unowned) {
      const creator = creatorOf(mirror)
      if (creator !== undefined) withCreator.add(mirror.name)
      give(creator?.memberId ?? leastLoaded(), mirror)
    }

    // Each move strictly narrows the gap between the most and least loaded members, so this ends.
    for (;;) {
      const from = mostLoaded()
      const to = leastLoaded()
      const gap = load.get(from)! - load.get(to)!
      // The biggest mirror that still narrows the gap: fewest moves for the most balance.
      const movable = [...held.get(from)!]
        .map((name) => byName.get(name)!)
        .filter((mirror) => weight(mirror) < gap && !withCreator.has(mirror.name))
        .sort((a, b) => weight(b) - weight(a) || compare(a.name, b.name))[0]
      if (!movable) break
      take(from, movable)
      give(to, movable)
    }
  }

  return new Map(ordered.map((member) => [member.memberId, [...held.get(member.memberId)!].sort(compare)]))
}

/** The load each member carries under an assignment (partitions), for logs and the instances page. */
export function assignedLoad(assignment: MirrorAssignment, mirrors: readonly AssignableMirror[]): Map<string, number> {
  const byName = new Map(mirrors.map((mirror) => [mirror.name, mirror]))
  return new Map([...assignment].map(([memberId, names]) => [memberId, names.reduce((sum, name) => sum + (byName.has(name) ? weight(byName.get(name)!) : 0), 0)]))
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
