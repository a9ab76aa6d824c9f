import type { Admin } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { SourceWriteFence } from './source-write-fence'

/** The admin calls the fence makes, against an ACL table held here; `authorizer: false` answers as a broker without one. */
function fakeAdmin(authorizer: boolean) {
  const acls = new Set<string>()
  const key = (entry: { resourceName: string; operation: number }) => `${entry.resourceName}:${entry.operation}`
  const admin = {
    describeAcls: async () => {
      if (!authorizer) throw Object.assign(new Error('Security features are disabled'), { type: 'SECURITY_DISABLED' })
      return { resources: [] }
    },
    createAcls: async ({ acl }: { acl: Array<{ resourceName: string; operation: number }> }) => {
      for (const entry of acl) acls.add(key(entry))
      return true
    },
    deleteAcls: async ({ filters }: { filters: Array<{ resourceName: string; operation: number }> }) => {
      for (const entry of filters) acls.delete(key(entry))
      return { filterResponses: [] }
    },
  }
  return { admin: admin as unknown as Admin, acls }
}

describe('SourceWriteFence', () => {
  it('fences with DENY WRITE and DELETE ACLs where the cluster has an authorizer, and lifts them', async () => {
    const { admin, acls } = fakeAdmin(true)
    const fence = new SourceWriteFence(admin)
    expect(await fence.method()).toBe('acl')
    await fence.fence(['orders', 'payments'])
    expect(acls.size).toBe(4)
    await fence.unfence(['orders'])
    expect([...acls].every((entry) => entry.startsWith('payments:'))).toBe(true)
  })

  it('has no fence without an authorizer: the method is none, and fencing throws instead of pretending', async () => {
    const { admin, acls } = fakeAdmin(false)
    const fence = new SourceWriteFence(admin)
    expect(await fence.method()).toBe('none')
    await expect(fence.fence(['orders'])).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('the cluster has no authorizer') })
    expect(acls.size).toBe(0)
  })
})
