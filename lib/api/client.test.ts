import { describe, expect, it } from 'vitest'
import { clusterEndpoints } from './endpoints'
import { endpointUrl, toApiError } from './client'

describe('endpointUrl', () => {
  it('fills path parameters, encoded, and appends the defined query parameters', () => {
    expect(endpointUrl(clusterEndpoints.readRecords, { cluster: 'east', topic: 'orders', partition: 0 }, { fromOffset: 5, limit: undefined, isolation: 'read_committed' })).toBe(
      '/api/v1/clusters/east/topics/orders/partitions/0/records?fromOffset=5&isolation=read_committed',
    )
    expect(endpointUrl(clusterEndpoints.commitGroupOffsets, { cluster: 'c', group: 'a b/c' })).toBe('/api/v1/clusters/c/groups/a%20b%2Fc/offsets')
  })

  it('refuses a missing path parameter', () => {
    expect(() => endpointUrl(clusterEndpoints.getCluster)).toThrow(/missing path parameter cluster/)
  })
})

describe('toApiError', () => {
  it('keeps the code, message and details of an API error body', () => {
    const error = toApiError(409, { error: { code: 'TOPIC_READ_ONLY', message: 'mirror topic', details: { topic: 't' } } })
    expect(error).toMatchObject({ code: 'TOPIC_READ_ONLY', message: 'mirror topic', details: { topic: 't' } })
  })

  it('turns anything else into INTERNAL naming the status', () => {
    expect(toApiError(502, '<html>bad gateway</html>')).toMatchObject({ code: 'INTERNAL', details: { status: 502 } })
    expect(toApiError(400, { error: { code: 'NOT_A_CODE', message: 'x' } }).code).toBe('INTERNAL')
  })
})
