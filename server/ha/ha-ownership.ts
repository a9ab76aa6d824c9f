import 'server-only'
import { mirrorKey, parseMirrorKey } from '@/lib/ha/member-metadata'
import type { MirrorOwnership, OwnedMirror } from '@/server/engine/ownership'

/**
 * The engine's ownership port when instances share the work (server/engine/ownership.ts): a mirror between two
 * shared clusters is this instance's only while the group's assignment gives it here; any other mirror (one with an
 * embedded cluster, which lives in this instance's data directory) is always this instance's.
 */
export class GroupOwnership implements MirrorOwnership {
  private keys = new Set<string>()
  /** Mirrors created here that the group has not placed yet (adoptCreated → placedByGroup). */
  private readonly created = new Set<string>()
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly isShared: (cluster: string) => boolean,
    readonly instanceId?: string,
  ) {}

  owns(mirror: OwnedMirror & { sourceCluster?: string }): boolean {
    return !this.sharesOut(mirror) || this.keys.has(mirrorKey(mirror))
  }

  /** Between two shared (Kafka) clusters: the group decides who runs it. */
  sharesOut(mirror: OwnedMirror & { sourceCluster?: string }): boolean {
    return this.isShared(mirror.destinationCluster) && (mirror.sourceCluster === undefined || this.isShared(mirror.sourceCluster))
  }

  assigned(): OwnedMirror[] {
    return [...this.keys].map((key) => parseMirrorKey(key)).filter((mirror): mirror is OwnedMirror => mirror !== null)
  }

  /** The keys this instance runs (what it tells the leader when it joins). */
  ownedKeys(): string[] {
    return [...this.keys].sort()
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * The group's new assignment for this instance. A mirror created here that the group has not placed yet stays: the
   * leader balanced from a catalog read before it existed (or an assignment queued behind the create was carried out
   * after it), so leaving it out says nothing about it. Taking it away made POST /mirrors answer 404 for the mirror it
   * had just made, and tore its start in half. Giving everything up (a lost session) gives it up too.
   */
  assign(keys: readonly string[]): void {
    if (keys.length === 0) this.created.clear()
    const next = new Set([...keys, ...this.created])
    if (next.size === this.keys.size && [...next].every((key) => this.keys.has(key))) return
    this.keys = next
    for (const listener of this.listeners) listener()
  }

  /** Another instance's writes fenced ours (issue #40): the mirror is not run here until an assignment gives it back. */
  release(name: string): boolean {
    const gone = [...this.keys].filter((key) => parseMirrorKey(key)?.name === name)
    for (const key of gone) this.created.delete(key)
    if (gone.length === 0) return false
    for (const key of gone) this.keys.delete(key)
    for (const listener of this.listeners) listener()
    return true
  }

  /** A mirror created on this instance runs here until the group has placed it (placedByGroup). */
  adoptCreated(mirror: OwnedMirror): void {
    this.keys.add(mirrorKey(mirror))
    this.created.add(mirrorKey(mirror))
  }

  /**
   * The rebalance asked for after the create has run (its leader read a catalog holding the mirror): from the next
   * assignment on, the group decides where it runs. That assignment may have arrived already, just before: the
   * sticky rebalance that follows (the short-lived member leaving) decides then.
   */
  placedByGroup(mirror: OwnedMirror): void {
    this.created.delete(mirrorKey(mirror))
  }
}
