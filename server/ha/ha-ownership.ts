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
  private readonly listeners = new Set<() => void>()

  constructor(private readonly isShared: (cluster: string) => boolean) {}

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

  /** The group's new assignment for this instance. */
  assign(keys: readonly string[]): void {
    const next = new Set(keys)
    if (next.size === this.keys.size && [...next].every((key) => this.keys.has(key))) return
    this.keys = next
    for (const listener of this.listeners) listener()
  }

  /** Another instance's writes fenced ours (issue #40): the mirror is not run here until an assignment gives it back. */
  release(name: string): boolean {
    const gone = [...this.keys].filter((key) => parseMirrorKey(key)?.name === name)
    if (gone.length === 0) return false
    for (const key of gone) this.keys.delete(key)
    for (const listener of this.listeners) listener()
    return true
  }

  /** A mirror created on this instance runs here until the next assignment says otherwise. */
  adoptCreated(mirror: OwnedMirror): void {
    this.keys.add(mirrorKey(mirror))
  }
}
