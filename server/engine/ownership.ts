import 'server-only'

/** A mirror as ownership names it: enough to find its state (its destination's `__mirror_state`). */
export interface OwnedMirror {
  name: string
  destinationCluster: string
}

/**
 * Which mirrors this engine runs (issue #40). One instance alone runs every mirror (`RUN_EVERY_MIRROR`); several
 * instances sharing a control cluster each run the mirrors the group's assignment gave them (server/ha/). The
 * engine consults it at start and whenever it says the assignment changed: it adopts an owned mirror it does not
 * hold (read again from the destination, where the previous owner left it) and releases one it holds but no
 * longer owns (its fetches stop, nothing is written for it any more).
 */
export interface MirrorOwnership {
  owns(mirror: OwnedMirror): boolean
  /** The mirrors assigned to this instance that live on shared clusters (what the engine may have to adopt). */
  assigned(): readonly OwnedMirror[]
  /** Calls `listener` after each change of the assignment; returns the unsubscribe. */
  onChange(listener: () => void): () => void
  /** This instance's id, recorded on the mirrors it creates (MirrorDefinition.createdOn); none when it runs alone. */
  readonly instanceId?: string
}

export const RUN_EVERY_MIRROR: MirrorOwnership = {
  owns: () => true,
  assigned: () => [],
  onChange: () => () => {},
}
