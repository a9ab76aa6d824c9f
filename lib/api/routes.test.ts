import { describe, expect, it } from 'vitest'
import * as catalog from './endpoints'
import * as routes from './routes'

const GROUPS = ['systemEndpoints', 'sessionEndpoints', 'clusterEndpoints', 'mirrorEndpoints', 'demoEndpoints', 'overviewEndpoints', 'alertEndpoints', 'verificationEndpoints', 'drillEndpoints', 'tokenEndpoints'] as const

describe('the browser’s routes (routes.ts) are the catalog without its schemas', () => {
  it('holds every group and entry of the catalog with its operationId, method, path, status and audit action', () => {
    for (const group of GROUPS) {
      const entries = catalog[group] as Readonly<Record<string, catalog.Endpoint>>
      const expected = Object.fromEntries(
        Object.entries(entries).map(([name, { operationId, method, path, status, audit }]) => [name, audit === undefined ? { operationId, method, path, status } : { operationId, method, path, status, audit }]),
      )
      expect(routes[group], group).toEqual(expected)
    }
  })

  it('covers every served endpoint, and offers each audit action once, sorted', () => {
    const operationIds = GROUPS.flatMap((group) => Object.values(routes[group] as Readonly<Record<string, routes.Route>>).map((route) => route.operationId))
    expect(operationIds.sort()).toEqual(catalog.SERVED_ENDPOINTS.map((entry) => entry.operationId).sort())
    const actions = [...new Set(catalog.SERVED_ENDPOINTS.flatMap((entry) => (entry.audit === undefined ? [] : [entry.audit])))].sort()
    expect(routes.AUDITED_ACTIONS).toEqual(actions)
  })
})
