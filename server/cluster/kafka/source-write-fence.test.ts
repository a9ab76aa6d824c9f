import { AclOperationTypes, type Admin } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { SourceWriteFence } from './source-write-fence'
import { WriteDenyAcls } from './write-deny-acls'

interface Binding {
  resourceName: string
  principal: string
  host: string
  operation: number
  permissionType: number
}

/** The admin calls the fence makes, against an ACL table held here as a broker holds it; `authorizer: false` answers as a broker without one. */
function fakeAdmin(authorizer: boolean) {
  const table = new Map<string, Binding>()
  const key = (b: Binding) => `${b.resourceName}|${b.principal}|${b.host}|${b.operation}|${b.permissionType}`
  const matches = (filter: Partial<Binding>, b: Binding) =>
    (filter.resourceName === undefined || filter.resourceName === b.resourceName) &&
    (filter.principal === undefined || filter.principal === b.principal) &&
    (filter.host === undefined || filter.host === b.host) &&
    filter.operation === b.operation &&
    filter.permissionType === b.permissionType
  const refuseWithout = () => {
    if (!authorizer) throw Object.assign(new Error('Security features are disabled'), { type: 'SECURITY_DISABLED' })
  }
  const admin = {
    describeAcls: async (filter: Partial<Binding>) => {
      refuseWithout()
      const found = [...table.values()].filter((b) => matches(filter, b))
      const names = [...new Set(found.map((b) => b.resourceName))]
      return { resources: names.map((resourceName) => ({ resourceName, acls: found.filter((b) => b.resourceName === resourceName) })) }
    },
    createAcls: async ({ acl }: { acl: Binding[] }) => {
      refuseWithout()
      for (const entry of acl) table.set(key(entry), entry)
      return true
    },
    deleteAcls: async ({ filters }: { filters: Array<Partial<Binding>> }) => {
      for (const filter of filters) for (const [k, b] of table) if (matches(filter, b)) table.delete(k)
      return { filterResponses: [] }
    },
  }
  const denies = (topic: string) => [...table.values()].filter((b) => b.resourceName === topic && b.principal === 'User:*').map((b) => b.operation)
  return { admin: admin as unknown as Admin, table, denies }
}

describe('SourceWriteFence', () => {
  it('fences with DENY WRITE and DELETE ACLs and an owner marker, lists the fences, and lifts exactly them', async () => {
    const { admin, table, denies } = fakeAdmin(true)
    const fence = new SourceWriteFence(new WriteDenyAcls(admin), () => 1_700_000_000_000)
    expect(await fence.method()).toBe('acl')
    await fence.fence(['orders', 'payments'], { mirror: 'dr', operation: 'op-1' })
    expect(table.size).toBe(6)
    expect(denies('orders').sort()).toEqual([AclOperationTypes.WRITE, AclOperationTypes.DELETE].sort())
    // A second server (no cache) lists them from the cluster alone.
    const elsewhere = new SourceWriteFence(new WriteDenyAcls(admin))
    expect(await elsewhere.list()).toEqual([
      { topic: 'orders', mirror: 'dr', operation: 'op-1', since: 1_700_000_000_000 },
      { topic: 'payments', mirror: 'dr', operation: 'op-1', since: 1_700_000_000_000 },
    ])
    await elsewhere.unfence(['orders'], 'other-mirror')
    expect(table.size).toBe(6)
    await elsewhere.unfence(['orders'], 'dr')
    expect([...table.values()].every((b) => b.resourceName === 'payments')).toBe(true)
    expect((await fence.list()).map((f) => f.topic)).toEqual(['payments'])
  })

  it('keeps its first time when asked to fence again (a retry, a restart)', async () => {
    const { admin, table } = fakeAdmin(true)
    let now = 1_000
    const fence = new SourceWriteFence(new WriteDenyAcls(admin), () => now)
    await fence.fence(['orders'], { mirror: 'dr', operation: 'op-1' })
    now = 2_000
    await new SourceWriteFence(new WriteDenyAcls(admin), () => now).fence(['orders'], { mirror: 'dr', operation: 'op-1' })
    expect(table.size).toBe(3)
    expect((await fence.list()).map((f) => f.since)).toEqual([1_000])
  })

  it('leaves the DENY where the mirror host keeps the topic read-only, and the host leaves it where a fence holds it', async () => {
    const { admin, denies } = fakeAdmin(true)
    const acls = new WriteDenyAcls(admin)
    let readOnly = true
    acls.answerReadOnlyFrom(async () => readOnly)
    const fence = new SourceWriteFence(acls)
    await fence.fence(['orders'], { mirror: 'dr', operation: 'op-1' })
    await acls.deny('orders')
    // The host's topic becomes writable while the fence holds it: the DENY stays.
    await acls.allow('orders')
    expect(denies('orders')).toHaveLength(2)
    await acls.deny('orders')
    await fence.unfence(['orders'], 'dr')
    expect(await fence.list()).toEqual([])
    expect(denies('orders')).toHaveLength(2)
    readOnly = false
    await acls.allow('orders')
    expect(denies('orders')).toEqual([])
  })

  it('has no fence without an authorizer: the method is none, fencing throws instead of pretending, the list is empty', async () => {
    const { admin, table } = fakeAdmin(false)
    const fence = new SourceWriteFence(new WriteDenyAcls(admin))
    expect(await fence.method()).toBe('none')
    await expect(fence.fence(['orders'], { mirror: 'dr', operation: 'op-1' })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('the cluster has no authorizer') })
    expect(table.size).toBe(0)
    expect(await fence.list()).toEqual([])
  })
})
