import 'server-only'
import { createHash } from 'node:crypto'
import type { MirrorDefinition } from '../types'

/**
 * A mirror's state version, our form of KIP-1279's StateOffset (KIP-1279.md §6.1): the definition's
 * digest (topics, config, creation time), the partition count and the sum of every partition's
 * stateEpoch. A stateEpoch only grows, by one per state change, so any state change of any partition
 * moves the sum and nothing brings it back; it is computed from persisted values, so a restart gives
 * the same version and an ETag taken before it still matches.
 */

const digests = new WeakMap<MirrorDefinition, string>()

function definitionDigest(definition: MirrorDefinition): string {
  // Definitions are replaced, never changed in place: one digest per object.
  let digest = digests.get(definition)
  if (digest === undefined) {
    digest = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 16)
    digests.set(definition, digest)
  }
  return digest
}

export function mirrorStateVersion(inputs: { definition: MirrorDefinition; partitionCount: number; stateEpochSum: number }): string {
  return `${definitionDigest(inputs.definition)}.${inputs.partitionCount}.${inputs.stateEpochSum}`
}

/** The ETag header value of a version (a strong entity tag). */
export function entityTag(version: string): string {
  return `"${version}"`
}

/**
 * Whether an If-Match header admits the current version (RFC 9110 §13.1.1): `*` admits any, otherwise
 * one of its strong entity tags must equal it. Weak or malformed tags never match.
 */
export function ifMatchAdmits(header: string, version: string): boolean {
  const value = header.trim()
  if (value === '*') return true
  const wanted = entityTag(version)
  return value.split(',').some((tag) => tag.trim() === wanted)
}
