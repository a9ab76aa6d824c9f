import { describe, expect, it } from 'vitest'
import { CreateMirrorRequest, FailoverRequest, LagQuery, MirrorPartitionsQuery, MirrorTopicsRequest, PatchMirrorRequest, StartTopicsRequest } from './mirrors'

describe('mirror request schemas', () => {
  it('read state filters in any case and with the KIP synonyms', () => {
    expect(MirrorPartitionsQuery.parse({ state: 'log_alignment, ULE_RECOVERY,paused' })).toEqual({ state: ['PREPARING', 'ULE_LOG_TRUNCATION', 'PAUSED'] })
    expect(MirrorPartitionsQuery.safeParse({ state: 'MIRRORING,ASLEEP' }).success).toBe(false)
    expect(MirrorPartitionsQuery.safeParse({ state: 'constructor' }).success).toBe(false)
  })

  it('accept known configs with their types only', () => {
    expect(PatchMirrorRequest.parse({ config: { 'fetch.max.bytes': 1024, 'topics.include': ['orders.*'] } })).toEqual({
      config: { 'fetch.max.bytes': 1024, 'topics.include': ['orders.*'] },
    })
    for (const config of [
      { 'fetch.max.bytes': -1 },
      { 'fetch.max.bytes': 0 },
      { 'fetch.max.bytes': 1e300 },
      { 'fetch.max.bytes': 1.5 },
      { 'fetch.max.bytes': '1024' },
      { 'topics.include': 'orders' },
      { 'topics.include': ['('] },
      { 'request.timeout.ms': 10 },
    ]) {
      expect(PatchMirrorRequest.safeParse({ config }).success, JSON.stringify(config)).toBe(false)
    }
    expect(CreateMirrorRequest.safeParse({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', config: { nope: 1 } }).success).toBe(false)
  })

  it('refuse an empty selection instead of reading it as every topic', () => {
    expect(MirrorTopicsRequest.safeParse({ topics: [] }).success).toBe(false)
    expect(MirrorTopicsRequest.parse({})).toEqual({})
    expect(FailoverRequest.safeParse({ topics: [], confirm: 'm' }).success).toBe(false)
    expect(StartTopicsRequest.safeParse({}).success).toBe(false)
    expect(StartTopicsRequest.safeParse({ topics: [], patterns: [] }).success).toBe(false)
    expect(StartTopicsRequest.parse({ patterns: ['a.*'], dryRun: true })).toEqual({ patterns: ['a.*'], dryRun: true })
  })

  it('keep lag windows in order', () => {
    expect(LagQuery.parse({ from: '10', to: '20', stepMs: '1000' })).toEqual({ from: 10, to: 20, stepMs: 1000 })
    expect(LagQuery.safeParse({ from: '20', to: '10' }).success).toBe(false)
    expect(LagQuery.safeParse({ stepMs: '10' }).success).toBe(false)
    expect(LagQuery.safeParse({ from: '-5' }).success).toBe(false)
  })
})
