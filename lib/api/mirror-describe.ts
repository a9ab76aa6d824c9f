import { z } from 'zod'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import { MIRROR_PARTITION_STATES } from '@/lib/mirror/states'
import { Name, PartitionIndex } from './common'

/** Every name a described state may have: ours, and the voted KIP's where they differ. */
const DESCRIBED_STATE_NAMES = [...new Set([...MIRROR_PARTITION_STATES, ...MIRROR_PARTITION_STATES.map((state) => STATE_METADATA[state].kipName)])] as [string, ...string[]]

/** An offset, or -1 where it is not known (Kafka's convention; the tool prints "-"). */
const OffsetOrUnknown = z.number().int().min(-1)

/**
 * One entry of `GET /mirrors/{mirror}/describe`: exactly what `kafka-cluster-mirrors.sh --describe --json` prints
 * per partition (KIP-1279.md §6.3), in its field order (lib/mirror/describe-entries.ts).
 */
export const DescribeEntry = z.object({
  mirror: Name,
  topic: Name,
  partition: PartitionIndex,
  sourceOffset: OffsetOrUnknown.describe("The source's high watermark as the last fetch answered; -1 unless MIRRORING and fetched."),
  destinationOffset: OffsetOrUnknown.describe("The destination's high watermark; -1 unless MIRRORING."),
  lag: OffsetOrUnknown.describe('max(0, sourceOffset − destinationOffset); -1 where either is not known.'),
  state: z.enum(DESCRIBED_STATE_NAMES).describe('Our state name, or with stateNames=kip the voted KIP-1279 name (LOG_ALIGNMENT for PREPARING, ULE_RECOVERY for ULE_LOG_TRUNCATION).'),
  retryAttempt: z.number().int().min(-1).describe('-1: failed for good (not retried).'),
  errorMessage: z.string().nullable(),
})
export type DescribeEntry = z.infer<typeof DescribeEntry>

/** The body is the array itself, as the tool prints it: `curl … | jq` reads it as it reads the tool's output. */
export const DescribeResponse = z.array(DescribeEntry)

export const DescribeQuery = z.object({
  failed: z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional()
    .describe("Only FAILED partitions (the tool's --failed)."),
  stateNames: z.enum(['api', 'kip']).optional().describe("'kip': states by the voted KIP's names, as Apache Kafka's tool prints them; default 'api', ours."),
})
