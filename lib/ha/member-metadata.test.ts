import { describe, expect, it } from 'vitest'
import { decodeMemberInfo, encodeMemberInfo, mirrorKey, parseMirrorKey } from './member-metadata'

describe('member metadata', () => {
  it('round-trips what an instance tells the leader', () => {
    const info = { instanceId: 'i-1', version: '1.2.3', owned: ['kafka-b/orders'] }
    expect(decodeMemberInfo(encodeMemberInfo(info))).toEqual(info)
    const nudge = { ...info, owned: [], rebalanceRequest: true as const }
    expect(decodeMemberInfo(encodeMemberInfo(nudge))).toEqual(nudge)
  })

  it('reads anything else as no Mirrorboard member, and drops keys that name no mirror', () => {
    expect(decodeMemberInfo('')).toBeNull()
    expect(decodeMemberInfo('{"instanceId":1}')).toBeNull()
    expect(decodeMemberInfo(JSON.stringify({ instanceId: 'i', version: 'v', owned: ['a/b', 'nokey', 'a/b/c', 7] }))?.owned).toEqual(['a/b'])
  })

  it('names a mirror by its destination cluster and its name', () => {
    expect(mirrorKey({ name: 'orders', destinationCluster: 'dr' })).toBe('dr/orders')
    expect(parseMirrorKey('dr/orders')).toEqual({ name: 'orders', destinationCluster: 'dr' })
    expect(parseMirrorKey('/orders')).toBeNull()
  })
})
