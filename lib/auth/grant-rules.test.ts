import { describe, expect, it } from 'vitest'
import { allowsWith, grantCoversWith, type Grant, type GrantRole, type Resource } from './grant-rules'
import { allows, grantCovers, matchesNamePattern } from './grants'

const grants: Grant[][] = [
  [],
  [{ role: 'viewer' }],
  [{ role: 'operator' }],
  [{ role: 'admin' }],
  [{ role: 'operator', mirrors: ['.*-to-eu-west'] }],
  [{ role: 'operator', clusters: ['east|west'] }, { role: 'viewer' }],
  [{ role: 'admin', mirrors: ['orders-(a|b)'], clusters: ['east'] }],
  [{ role: 'operator', mirrors: [] }],
]
const resources: Resource[] = [null, { mirror: 'orders-to-eu-west' }, { mirror: 'orders-a' }, { mirror: 'orders-ab' }, { cluster: 'east' }, { cluster: 'eastern' }]
const roles: GrantRole[] = ['viewer', 'operator', 'admin']

describe('grant-rules (the browser\'s grants) with RE2\'s matcher', () => {
  it('decides as grants.ts does on every grant, role and resource', () => {
    for (const list of grants)
      for (const resource of resources) {
        for (const grant of list) expect(grantCoversWith(grant, resource, matchesNamePattern)).toBe(grantCovers(grant, resource))
        for (const role of roles) expect(allowsWith(list, role, resource, matchesNamePattern)).toBe(allows(list, role, resource))
      }
  })

  it('asks the matcher only of scoped grants on named resources', () => {
    const asked: string[] = []
    const matcher = (pattern: string, name: string) => {
      asked.push(`${pattern}~${name}`)
      return true
    }
    expect(allowsWith([{ role: 'admin' }], 'operator', { mirror: 'm' }, matcher)).toBe(true)
    expect(allowsWith([{ role: 'operator', mirrors: ['m.*'] }], 'operator', null, matcher)).toBe(false)
    expect(asked).toEqual([])
    expect(allowsWith([{ role: 'operator', mirrors: ['m.*'] }], 'operator', { mirror: 'mx' }, matcher)).toBe(true)
    expect(asked).toEqual(['m.*~mx'])
  })

})
