import { z } from 'zod'
import { ISOLATION_LEVELS } from '../log/types'
import { IntegerString, Name, NonNegativeInt, PartitionIndex, Timestamp, printableId } from './common'

export const RecordType = z.enum(['DATA', 'COMMIT', 'ABORT', 'MIRROR_PID_RESET', 'CONTROL'])
export type RecordType = z.infer<typeof RecordType>

export const IsolationLevel = z.enum(ISOLATION_LEVELS)
export type IsolationLevel = z.infer<typeof IsolationLevel>

export const RecordHeader = z.object({ key: z.string(), value: z.string().nullable() })

/**
 * One offset of a partition log, control records included. Keys, values and header values are UTF-8
 * strings, or base64 for all of them when any is not valid UTF-8 (`encoding: "base64"`).
 */
export const RecordEntry = z.object({
  offset: NonNegativeInt,
  type: RecordType,
  producerId: NonNegativeInt.nullable(),
  producerEpoch: z.number().int().nullable(),
  leaderEpoch: z.number().int(),
  transactional: z.boolean(),
  timestamp: Timestamp,
  key: z.string().nullable(),
  value: z.string().nullable(),
  headers: z.array(RecordHeader),
  encoding: z.literal('base64').optional(),
})
export type RecordEntry = z.infer<typeof RecordEntry>

export const RecordsQuery = z.object({
  fromOffset: IntegerString.default(0),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be an integer from 1 to 1000')
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(100),
  isolation: IsolationLevel.default('read_uncommitted'),
})
export type RecordsQuery = z.infer<typeof RecordsQuery>

export const RecordsResponse = z.object({
  topic: Name,
  partition: PartitionIndex,
  logStartOffset: NonNegativeInt,
  highWatermark: NonNegativeInt,
  lastStableOffset: NonNegativeInt,
  logEndOffset: NonNegativeInt,
  leaderEpoch: z.number().int().min(-1),
  records: z.array(RecordEntry),
  /** Where the next page starts: one past the last offset this read covered. */
  nextOffset: NonNegativeInt,
})
export type RecordsResponse = z.infer<typeof RecordsResponse>

const HeaderInput = z.strictObject({ key: z.string().max(1000), value: z.string().nullable() })

export const RecordInput = z
  .strictObject({
    key: z.string().nullable().optional(),
    value: z.string().nullable(),
    headers: z
      .union([z.array(HeaderInput).max(1000), z.record(z.string().max(1000), z.string().nullable())])
      .optional(),
    encoding: z.enum(['utf8', 'base64']).optional().describe('How key, value and header values are written; utf8 by default.'),
    timestamp: NonNegativeInt.optional().describe('Create time in ms; the append time by default.'),
  })
  .superRefine((record, ctx) => {
    if (record.encoding !== 'base64') return
    const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
    const check = (value: string | null | undefined, path: PropertyKey[]) => {
      if (typeof value === 'string' && !base64.test(value)) ctx.addIssue({ code: 'custom', message: 'must be base64', path })
    }
    check(record.key, ['key'])
    check(record.value, ['value'])
    const headers = record.headers
    if (Array.isArray(headers)) headers.forEach((header, index) => check(header.value, ['headers', index, 'value']))
    else if (headers) for (const [key, value] of Object.entries(headers)) check(value, ['headers', key])
  })
export type RecordInput = z.infer<typeof RecordInput>

const RecordInputs = z.array(RecordInput).min(1).max(10_000)

export const ProduceRequest = z.strictObject({
  partition: PartitionIndex.optional(),
  idempotent: z.boolean().optional().describe('false writes without a producer id; true by default.'),
  records: RecordInputs,
})
export type ProduceRequest = z.infer<typeof ProduceRequest>

export const ProducedRecord = z.object({ partition: PartitionIndex, offset: NonNegativeInt })

export const ProduceResponse = z.object({ records: z.array(ProducedRecord) })
export type ProduceResponse = z.infer<typeof ProduceResponse>

export const ProducerHandle = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a producer handle')

export const ProducerParams = z.object({ cluster: Name, handle: ProducerHandle })

export const CreateProducerRequest = z.strictObject({
  transactionalId: printableId(255),
})
export type CreateProducerRequest = z.infer<typeof CreateProducerRequest>

export const ProducerCreated = z.object({
  producer: ProducerHandle,
  transactionalId: z.string(),
  producerId: NonNegativeInt,
  producerEpoch: NonNegativeInt,
})
export type ProducerCreated = z.infer<typeof ProducerCreated>

export const ProducerSendRequest = z.strictObject({
  topic: Name,
  partition: PartitionIndex.optional(),
  records: RecordInputs,
})
export type ProducerSendRequest = z.infer<typeof ProducerSendRequest>
