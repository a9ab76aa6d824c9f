import 'server-only'
import { createHash } from 'node:crypto'
import type { MirrorDefinition } from '../types'

/**
 * A mirror's state version, our form of KIP-1279's StateOffset (KIP-1279.md §6.1): the definition's
 * digest (topics, config, creation time), the partition count and the sum of every partition's
 * stateEpoch. A stateEpoch only grows, by one per state change, so any state change of any partition
 * moves the sum and nothing brings it back; it is computed from persisted values, so a restart gives
 * the same version and an ETag taken before it still matches. The HTTP layer carries it as the ETag and takes
 * If-Match back as a command's precondition (server/http/conditional.ts, commands/command-queue.ts).
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
