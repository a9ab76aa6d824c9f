import { describe, expect, it } from 'vitest'
import { allows, highestRole, refusalReason } from './grants'
import { grantsFor, parseRolesFile, RolesFileError } from './roles-file'

const example = `# who may do what
rules:
  - group: dr-eu
    role: operator
    mirrors: [".*-to-eu-west"]
  - group: dr-eu
    role: viewer
  - email: Alice@Example.com
    role: admin
  - subject: svc-1
    role: operator
    clusters: ["eu-.*"]
`

function errorOf(text: string): RolesFileError {
  try {
    parseRolesFile(text)
  } catch (error) {
    if (error instanceof RolesFileError) return error
    throw error
  }
  throw new Error('parsed')
}

describe('parseRolesFile', () => {
  it('reads groups, subjects and e-mail addresses with their scoped roles', () => {
    const rules = parseRolesFile(example)
    expect(rules.map((rule) => [rule.match, rule.grant, rule.line])).toEqual([
      [{ group: 'dr-eu' }, { role: 'operator', mirrors: ['.*-to-eu-west'] }, 3],
      [{ group: 'dr-eu' }, { role: 'viewer' }, 6],
      [{ email: 'Alice@Example.com' }, { role: 'admin' }, 8],
      [{ subject: 'svc-1' }, { role: 'operator', clusters: ['eu-.*'] }, 10],
    ])
  })

  it('stops at an unknown role, a bad pattern or an unknown key with the line', () => {
    expect(errorOf('rules:\n  - group: a\n    role: superuser\n')).toMatchObject({ line: 3, problem: 'unknown role "superuser" (viewer, operator or admin)' })
    const bad = errorOf('rules:\n  - group: a\n    role: viewer\n    mirrors:\n      - "ok"\n      - "(unclosed"\n')
    expect(bad.line).toBe(6)
    expect(bad.problem).toMatch(/^mirrors: "\(unclosed" is not a pattern: /)
    expect(errorOf('rules:\n  - group: a\n    role: viewer\n    clusterz: [a]\n')).toMatchObject({ line: 4, problem: expect.stringContaining('unknown key "clusterz"') })
    expect(errorOf('rulez: []\n')).toMatchObject({ line: 1, problem: expect.stringContaining('unknown key "rulez"') })
    expect(errorOf('rules:\n  - group: a\n    email: b@c\n    role: viewer\n')).toMatchObject({ line: 2, problem: expect.stringContaining('not group and email') })
    expect(errorOf('rules:\n  - role: viewer\n')).toMatchObject({ line: 2 })
    expect(errorOf('rules:\n  - group: a\n')).toMatchObject({ line: 2, problem: expect.stringContaining('needs a role') })
    expect(errorOf('rules:\n  - group: a\n    role: viewer\n    mirrors: []\n')).toMatchObject({ line: 4 })
    expect(errorOf('rules: [\n').message).toMatch(/^line \d+: /)
    expect(errorOf('- a\n')).toMatchObject({ problem: expect.stringContaining('"rules"') })
    expect(errorOf('rules:\n  - group: a\n    role: viewer\n    role: admin\n').message).toMatch(/^line 4: /)
  })
})

describe('grantsFor and allows', () => {
  const rules = parseRolesFile(example)

  it('gives a scoped operator its mirrors and a viewer elsewhere', () => {
    const grants = grantsFor(rules, { subject: 'u1', groups: ['dr-eu', 'other'] })
    expect(allows(grants, 'operator', { mirror: 'orders-to-eu-west' })).toBe(true)
    expect(allows(grants, 'operator', { mirror: 'orders-to-us-east' })).toBe(false)
    expect(allows(grants, 'operator', { mirror: 'x-orders-to-eu-west-2' })).toBe(false)
    expect(allows(grants, 'viewer', { mirror: 'orders-to-us-east' })).toBe(true)
    expect(allows(grants, 'operator', { cluster: 'orders-to-eu-west' })).toBe(false)
    expect(allows(grants, 'operator', null)).toBe(false)
    expect(allows(grants, 'admin', null)).toBe(false)
    expect(highestRole(grants)).toBe('operator')
    expect(refusalReason(grants, 'operator', { mirror: 'orders-to-us-east' })).toBe('your operator role does not extend to mirror orders-to-us-east')
    expect(refusalReason(grants, 'admin', null)).toBe('this action needs the admin role')
  })

  it('matches e-mail addresses without regard to case, subjects exactly, and nobody by default', () => {
    expect(grantsFor(rules, { subject: 'x', email: 'alice@example.COM', groups: [] })).toEqual([{ role: 'admin' }])
    expect(allows(grantsFor(rules, { subject: 'x', email: 'alice@example.com', groups: [] }), 'operator', { mirror: 'any' })).toBe(true)
    expect(grantsFor(rules, { subject: 'svc-1', groups: [] })).toEqual([{ role: 'operator', clusters: ['eu-.*'] }])
    expect(grantsFor(rules, { subject: 'SVC-1', groups: [] })).toEqual([])
    expect(grantsFor(rules, { subject: 'nobody', groups: ['dr-us'] })).toEqual([])
  })
})
