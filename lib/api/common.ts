import { z } from 'zod'
import { namePatternProblem } from '@/lib/mirror/name-patterns'
import { isValidName, NAME_PATTERN } from '@/lib/mirror/names'

/**
 * Building blocks shared by every request and response schema of the HTTP API (API.md). Request objects
 * are strict (an unknown field is a typo the caller wants to hear about); responses strip what they do
 * not declare, so nothing the server did not mean to publish leaves it.
 */

/** Cluster, mirror and topic names (API.md conventions); the rule itself is lib/mirror/names.ts. */
export { NAME_PATTERN } from '@/lib/mirror/names'

// "." and ".." match the pattern but are not names: Kafka refuses them as topics, and a cluster called ".."
// would be a directory outside the data dir.
export const Name = z
  .string()
  .regex(NAME_PATTERN, 'must be 1 to 249 characters of A-Z, a-z, 0-9, ".", "_" or "-"')
  .refine((name) => isValidName(name), 'must not be "." or ".."')

/** Offsets, counts, producer ids: what Kafka keeps in an int64, which our clusters keep below 2^53. */
export const NonNegativeInt = z.number().int().nonnegative()

/** A partition index (Kafka int32). */
export const PartitionIndex = z.number().int().nonnegative().max(2 ** 31 - 1)

/** Milliseconds since the epoch. */
export const Timestamp = z.number().int()

/** Broker id, or -1 while a partition is offline (Kafka's convention). */
export const BrokerIdOrNone = z.number().int().min(-1)

/**
 * A non-negative integer in a query string or path segment: digits only, so "-1", "1e3", " 7" and "0x10"
 * are refused rather than coerced.
 */
export const IntegerString = z
  .string()
  .regex(/^\d{1,16}$/, 'must be a non-negative integer')
  .transform(Number)
  .pipe(NonNegativeInt)

export const PartitionString = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a non-negative integer')
  .transform(Number)
  .pipe(PartitionIndex)

export const OkResponse = z.object({ ok: z.literal(true) })
export type OkResponse = z.infer<typeof OkResponse>

/**
 * A comma-separated list of names or enum values in a query string (`?state=MIRRORING,FAILED`), trimmed,
 * empty entries dropped. The raw text is held to the characters such items are made of and to 1,000 of
 * them, so the published schema never admits a query that Node's 16 KiB request-header limit would refuse
 * (431) before the API sees it.
 */
export function commaList<T extends z.ZodType<string, string>>(item: T) {
  return z
    .string()
    .max(1000)
    .regex(/^[A-Za-z0-9._, -]*$/, 'must be a comma-separated list of names')
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(item).max(500))
}

/**
 * A topic or group pattern (include/exclude filters, start patterns): an RE2 regular expression matched in linear
 * time against whole names (lib/mirror/name-patterns.ts); refused when RE2 does not accept it (backreferences,
 * lookaround), with RE2's reason.
 */
export const RegexString = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((source, context) => {
    const problem = namePatternProblem(source)
    if (problem !== null) context.addIssue({ code: 'custom', message: `must be an RE2 regular expression (no backreferences or lookaround): ${problem}` })
  })

/**
 * Ids Kafka accepts as arbitrary non-empty strings (group ids, transactional ids), with control characters (Unicode
 * category Cc: U+0000-U+001F, U+007F-U+009F) refused so they stay printable. The range is spelled out rather
 * than written `\p{Cc}`: the pattern is published in the OpenAPI document, and clients that generate values
 * from it (schemathesis, Python's `re`) have no Unicode property classes.
 */
export function printableId(maxLength: number) {
  return z
    .string()
    .min(1)
    .max(maxLength)
    .regex(/^[^\u0000-\u001f\u007f-\u009f]+$/, 'must not contain control characters')
}
