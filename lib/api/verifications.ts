import { z } from 'zod'
import { Name, NonNegativeInt, PartitionIndex, Timestamp } from './common'
import { Role } from './session'

/**
 * Byte-for-byte verification of a mirror (API.md §"Round 3": `POST /mirrors/{m}/verify`, `GET /verifications/{id}`):
 * source and destination compared over the mirrored range of each partition, batch by batch (bytes and CRC
 * where the destination holds the source's batches) or record by record (content where it re-encodes them).
 * The comparison itself is lib/verify/.
 */

export const VerificationMode = z.enum(['bytes', 'content'])
export const MismatchKind = z.enum(['crc', 'bytes', 'content', 'missing', 'extra'])
export const VerificationStatus = z.enum(['running', 'passed', 'mismatched', 'failed', 'cancelled'])
export type VerificationStatus = z.infer<typeof VerificationStatus>
export const PartitionVerificationStatus = z.enum(['pending', 'running', 'identical', 'mismatched', 'failed', 'cancelled'])
export type PartitionVerificationStatus = z.infer<typeof PartitionVerificationStatus>

export const VerificationMismatch = z.object({
  offset: NonNegativeInt,
  kind: MismatchKind,
  detail: z.string(),
})
export type VerificationMismatch = z.infer<typeof VerificationMismatch>

export const VerificationPartition = z.object({
  topic: Name,
  partition: PartitionIndex,
  /** The range compared: [fromOffset, toOffset), in the source's offsets. */
  fromOffset: NonNegativeInt,
  toOffset: NonNegativeInt,
  /** Batches (byte mode) or records (content mode) judged so far; bytes of the source's batches read. */
  batches: NonNegativeInt,
  bytes: NonNegativeInt,
  mode: VerificationMode,
  /** The first ones, by offset (at most 100); `mismatchCount` counts them all. */
  mismatches: z.array(VerificationMismatch),
  mismatchCount: NonNegativeInt,
  status: PartitionVerificationStatus,
  /** Compared up to here (exclusive); the partition resumes here after a restart. */
  verifiedTo: NonNegativeInt,
  /** [fromOffset, identicalUpTo) is known identical: the first mismatch, or how far the comparison got. */
  identicalUpTo: NonNegativeInt,
  /** "identical up to offset N", or why it is not known. */
  summary: z.string(),
  /** Why the partition could not be compared (its cluster unreachable...); null otherwise. */
  error: z.string().nullable(),
})
export type VerificationPartition = z.infer<typeof VerificationPartition>

export const VerificationTotals = z.object({
  partitions: NonNegativeInt,
  /** Partitions no longer pending or running. */
  done: NonNegativeInt,
  identical: NonNegativeInt,
  mismatched: NonNegativeInt,
  failed: NonNegativeInt,
  mismatches: NonNegativeInt,
  batches: NonNegativeInt,
  bytes: NonNegativeInt,
  /** Offsets in every partition's range, and how many of them are compared so far (progress). */
  offsets: NonNegativeInt,
  verifiedOffsets: NonNegativeInt,
})

const VerificationFields = {
  id: z.string(),
  mirror: Name,
  status: VerificationStatus,
  sourceCluster: Name,
  destinationCluster: Name,
  /** bytes for an embedded destination, content for a Kafka one. */
  mode: VerificationMode,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  /** The failover this verification checks (it runs by itself at the end of each); null when asked for. */
  operation: z.string().nullable(),
  // actorName: the person's name and address when they signed in through the identity provider.
  requestedBy: z.object({ actor: z.string(), actorName: z.string().optional(), role: Role.nullable() }).nullable(),
  /** Set when the whole verification could not run (the mirror's clusters unknown). */
  error: z.string().nullable(),
  totals: VerificationTotals,
}

export const Verification = z.object({ ...VerificationFields, partitions: z.array(VerificationPartition) })
export type Verification = z.infer<typeof Verification>

/** A verification in a list: everything but its partitions. */
export const VerificationSummary = z.object(VerificationFields)
export type VerificationSummary = z.infer<typeof VerificationSummary>

export const VerificationList = z.object({ verifications: z.array(VerificationSummary) })

export const VerifyRequest = z.strictObject({
  topics: z.array(Name).min(1).max(1000).optional().describe("Only these topics of the mirror (all when absent); each must be one of the mirror's topics."),
})
export type VerifyRequest = z.infer<typeof VerifyRequest>

export const VerificationAccepted = z.object({ verification: z.string() })

export const VerificationParams = z.object({ id: z.string().regex(/^v-[a-z0-9]{1,32}$/, 'must be a verification id (v-…)') })
