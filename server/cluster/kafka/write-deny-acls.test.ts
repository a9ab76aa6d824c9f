import type { Admin } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { WriteDenyAcls } from './write-deny-acls'

/** The three admin calls the guard makes; describeAcls fails as often as told first (a busy broker's timeout). */
function fakeAdmin(failDescribes: number) {
  const created: string[] = []
  let describes = 0
  const admin = {
    describeAcls: async () => {
      describes += 1
      if (describes <= failDescribes) throw Object.assign(new Error('Request DescribeAcls timed out'), { type: 'REQUEST_TIMED_OUT' })
      return { resources: [] }
    },
    createAcls: async ({ acl }: { acl: Array<{ resourceName: string }> }) => {
      created.push(...acl.map((entry) => entry.resourceName))
      return true
    },
    deleteAcls: async () => ({ filterResponses: [] }),
  }
  return { admin: admin as unknown as Admin, created, describes: () => describes }
}

describe('WriteDenyAcls', () => {
  it('asks again whether the cluster has an authorizer when the first look failed, and then applies the DENY', async () => {
    const { admin, created, describes } = fakeAdmin(1)
    const acls = new WriteDenyAcls(admin)
    await acls.load()
    expect(acls.authorizer).toBe('unknown')
    await acls.deny('orders')
    expect(describes()).toBe(2)
    expect(acls.authorizer).toBe('present')
    expect(acls.guardOf('orders')).toEqual({ kind: 'acl' })
    expect(created).toEqual(['orders', 'orders'])
  })

  it('stays detected, with the reason, while the authorizer cannot be read', async () => {
    const { admin, created } = fakeAdmin(5)
    const acls = new WriteDenyAcls(admin)
    await acls.load()
    await acls.deny('orders')
    expect(created).toEqual([])
    expect(acls.guardOf('orders')).toEqual({ kind: 'detected', reason: 'no DENY WRITE ACL could be read or applied' })
  })
})
