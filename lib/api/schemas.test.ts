import fc from 'fast-check'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { CreateClusterRequest } from './clusters'
import { IntegerString, Name, NAME_PATTERN } from './common'
import { GroupId } from './groups'
import { MirrorPartitionsQuery } from './mirrors'
import { ProduceRequest, RecordsQuery } from './records'
import { CreateTopicRequest } from './topics'

describe('names', () => {
  it('accepts exactly the strings of the API pattern, except "." and ".."', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(NAME_PATTERN)), (text) => {
        expect(Name.safeParse(text).success).toBe(NAME_PATTERN.test(text) && text !== '.' && text !== '..')
      }),
    )
    expect(Name.safeParse('x'.repeat(249)).success).toBe(true)
    expect(Name.safeParse('x'.repeat(250)).success).toBe(false)
  })
})

describe('group and transactional ids', () => {
  it('refuse exactly the control characters (Unicode Cc), with a pattern that names no property class', () => {
    const cc = /^[^\p{Cc}]+$/u
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), (text) => {
        expect(GroupId.safeParse(text).success).toBe(cc.test(text))
      }),
    )
    for (const text of ['a\u0000', 'a\u001f', 'a\u007f', 'a\u0085', 'a\u009f']) expect(GroupId.safeParse(text).success, JSON.stringify(text)).toBe(false)
    for (const text of ['billing', 'a\u00a0b', 'é ü', 'a\u2028']) expect(GroupId.safeParse(text).success, JSON.stringify(text)).toBe(true)
    expect(JSON.stringify(z.toJSONSchema(GroupId))).not.toContain('\\\\p{')
  })
})

describe('numbers in query strings', () => {
  it('reads digits only, within the safe integer range', () => {
    expect(IntegerString.parse('0')).toBe(0)
    expect(IntegerString.parse('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER)
    for (const text of ['-1', '1e3', ' 7', '0x10', '1.5', '', '9007199254740993', '99999999999999999']) {
      expect(IntegerString.safeParse(text).success, text).toBe(false)
    }
  })

  it('gives records queries their defaults', () => {
    expect(RecordsQuery.parse({})).toEqual({ fromOffset: 0, limit: 100, isolation: 'read_uncommitted' })
    expect(RecordsQuery.safeParse({ limit: '1001' }).success).toBe(false)
  })

  it('reads comma-separated state filters', () => {
    expect(MirrorPartitionsQuery.parse({ state: 'MIRRORING, FAILED,' })).toEqual({ state: ['MIRRORING', 'FAILED'] })
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING,SLEEPING' }).success).toBe(false)
  })

  it('keep lists to what fits in a request line: name characters, 1,000 at most', () => {
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING,'.repeat(100) }).success).toBe(true)
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING,'.repeat(100) + 'X' }).success).toBe(false)
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING\u00f6' }).success).toBe(false)
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING;FAILED' }).success).toBe(false)
  })
})

describe('request bodies', () => {
  it('refuse unknown fields, so a typo is reported instead of ignored', () => {
    expect(CreateTopicRequest.safeParse({ name: 't', partitions: 1, partitons: 3 }).success).toBe(false)
    expect(CreateClusterRequest.safeParse({ name: 'c', kind: 'embedded', broker: 3 }).success).toBe(false)
  })

  it('tell embedded from kafka clusters by kind', () => {
    expect(CreateClusterRequest.parse({ name: 'c', kind: 'embedded' })).toEqual({ name: 'c', kind: 'embedded' })
    expect(CreateClusterRequest.safeParse({ name: 'c', kind: 'kafka' }).success).toBe(false)
    expect(CreateClusterRequest.safeParse({ name: 'c', kind: 'kafka', bootstrapServers: ['broker-1:9092', '[::1]:9093'] }).success).toBe(true)
    expect(CreateClusterRequest.safeParse({ name: 'c', kind: 'kafka', bootstrapServers: ['broker-1:70000'] }).success).toBe(false)
  })

  it('check base64 only when the record says it is base64', () => {
    expect(ProduceRequest.safeParse({ records: [{ value: 'not base64!' }] }).success).toBe(true)
    expect(ProduceRequest.safeParse({ records: [{ value: 'not base64!', encoding: 'base64' }] }).success).toBe(false)
    expect(ProduceRequest.safeParse({ records: [{ value: 'AAEC', key: null, headers: [{ key: 'h', value: '!!' }], encoding: 'base64' }] }).success).toBe(false)
    expect(ProduceRequest.safeParse({ records: [{ value: 'AAEC', headers: { h: 'dA==' }, encoding: 'base64' }] }).success).toBe(true)
  })

  it('bound partition counts and record batches', () => {
    expect(CreateTopicRequest.safeParse({ name: 't', partitions: 1001 }).success).toBe(false)
    expect(ProduceRequest.safeParse({ records: [] }).success).toBe(false)
    expect(ProduceRequest.safeParse({ records: Array.from({ length: 10_001 }, () => ({ value: null })) }).success).toBe(false)
  })
})
