import { describe, expect, it } from 'vitest'
import { auditResourceOf, seesAuditEntry, seesCluster, seesEverything, seesEvent, seesMirror, visibleAttention } from './visibility'

const euOperator = [{ role: 'operator' as const, mirrors: ['.*-to-eu-west'] }]
const paymentsViewer = [{ role: 'viewer' as const, clusters: ['payments-.*'] }]

describe('what a scoped caller sees', () => {
  it('sees everything with a grant that holds everywhere, else what its patterns name', () => {
    expect(seesEverything([{ role: 'viewer' }, ...euOperator])).toBe(true)
    expect(seesEverything(euOperator)).toBe(false)
    expect(seesMirror(euOperator, 'orders-to-eu-west')).toBe(true)
    expect(seesMirror(euOperator, 'orders-to-eu-west-2')).toBe(false)
    expect(seesCluster(euOperator, 'eu-west')).toBe(false)
    expect(seesCluster(paymentsViewer, 'payments-eu')).toBe(true)
    expect(seesMirror(paymentsViewer, 'payments-dr')).toBe(false)
  })

  it('reads the mirror or cluster of an audit entry from its target, and shows a scoped caller its own entries', () => {
    expect(auditResourceOf('/mirrors/orders-to-eu-west/topics/pause')).toEqual({ mirror: 'orders-to-eu-west' })
    expect(auditResourceOf('/clusters/payments-eu/topics')).toEqual({ cluster: 'payments-eu' })
    expect(auditResourceOf('/tokens/ci')).toBeNull()
    expect(auditResourceOf('/mirrors/%E0%A4%A')).toBeNull()
    expect(seesAuditEntry(euOperator, 'token:ci', { actor: 'user:bob', target: '/mirrors/orders-to-eu-west' })).toBe(true)
    expect(seesAuditEntry(euOperator, 'token:ci', { actor: 'user:bob', target: '/mirrors/billing-dr' })).toBe(false)
    expect(seesAuditEntry(euOperator, 'token:ci', { actor: 'user:bob', target: '/session' })).toBe(false)
    expect(seesAuditEntry(euOperator, 'token:ci', { actor: 'token:ci', target: '/mirrors/billing-dr/topics/pause' })).toBe(true)
  })

  it('keeps the findings of visible mirrors in "needs attention" and counts the totals again from them', () => {
    const attention = {
      items: [
        { kind: 'failed' as const, mirror: 'orders-to-eu-west' },
        { kind: 'paused' as const, mirror: 'billing-dr' },
      ],
      groups: [
        { kind: 'failed' as const, mirror: 'orders-to-eu-west', partitions: 3 },
        { kind: 'paused' as const, mirror: 'billing-dr', partitions: 7 },
      ],
      totals: { failed: 3, lagGrowing: 0, staleFetch: 0, paused: 7 },
      at: 1,
    }
    expect(visibleAttention(euOperator, attention)).toEqual({
      items: [attention.items[0]],
      groups: [attention.groups[0]],
      totals: { failed: 3, lagGrowing: 0, staleFetch: 0, paused: 0 },
      at: 1,
    })
    expect(visibleAttention([{ role: 'viewer' }], attention)).toBe(attention)
  })

  it('keeps the RPO breaches of visible mirrors only', () => {
    const attention = {
      items: [],
      groups: [],
      totals: { failed: 0, lagGrowing: 0, staleFetch: 0, paused: 0 },
      rpoBreaches: [{ mirror: 'billing-dr', records: 9 }, { mirror: 'orders-to-eu-west', records: 4 }],
    }
    expect(visibleAttention(euOperator, attention).rpoBreaches).toEqual([{ mirror: 'orders-to-eu-west', records: 4 }])
  })
})

describe('seesEvent', () => {
  it('passes a scoped caller the live events about what it may read, and those about nothing named', () => {
    expect(seesEvent(euOperator, 'token:eu', 'partition', { mirror: 'orders-to-eu-west', partition: 0 })).toBe(true)
    expect(seesEvent(euOperator, 'token:eu', 'lag', { mirror: 'billing-dr' })).toBe(false)
    expect(seesEvent(paymentsViewer, 'token:p', 'cluster', { cluster: 'payments-east', change: 'created' })).toBe(true)
    expect(seesEvent(paymentsViewer, 'token:p', 'cluster', { cluster: 'orders-east', change: 'created' })).toBe(false)
    expect(seesEvent(euOperator, 'token:eu', 'audit', { actor: 'token:other', target: '/mirrors/billing-dr/topics/pause' })).toBe(false)
    expect(seesEvent(euOperator, 'token:eu', 'audit', { actor: 'token:eu', target: '/tokens' })).toBe(true)
    expect(seesEvent(euOperator, 'token:eu', 'resync', { reason: 'eventsDropped' })).toBe(true)
    expect(seesEvent([{ role: 'viewer' }], 'token:v', 'lag', { mirror: 'billing-dr' })).toBe(true)
  })
})
