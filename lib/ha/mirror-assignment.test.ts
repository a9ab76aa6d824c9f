import { describe, expect, it } from 'vitest'
import { assignedLoad, assignMirrors, type AssignableMirror, type GroupMember } from './mirror-assignment'

const mirrors = (counts: Record<string, number>): AssignableMirror[] => Object.entries(counts).map(([name, partitions]) => ({ name, partitions }))
const member = (id: string, owned: string[] = []): GroupMember => ({ memberId: `member-${id}`, instanceId: id, owned })
const owners = (assignment: Map<string, string[]>): Map<string, string> => new Map([...assignment].flatMap(([memberId, names]) => names.map((name) => [name, memberId] as const)))

describe('assignMirrors', () => {
  it('gives every mirror to exactly one member, balanced by partition count', () => {
    const all = mirrors({ m1: 6, m2: 6, m3: 6, m4: 3, m5: 3, m6: 3, m7: 1, m8: 1, m9: 1 })
    const assignment = assignMirrors(all, [member('a'), member('b'), member('c')])
    const assigned = [...assignment.values()].flat().sort()
    expect(assigned).toEqual(all.map((m) => m.name).sort())
    expect([...assignedLoad(assignment, all).values()]).toEqual([10, 10, 10])
  })

  it('gives nothing to a member that joined only to make the group rebalance, and balances a new mirror over the others', () => {
    const all = mirrors({ m1: 2, m2: 2, m3: 2, m4: 2 })
    const nudge: GroupMember = { ...member('a'), memberId: 'member-nudge', owned: [], rebalanceRequest: true }
    // b created m3 and m4 (it runs them since): the rebalance they asked for moves one to a.
    const assignment = assignMirrors(all, [member('a', ['m1']), member('b', ['m2', 'm3', 'm4']), nudge])
    expect(assignment.get('member-nudge')).toEqual([])
    expect([...assignedLoad(assignment, all).values()]).toEqual([4, 4, 0])
    expect(assignment.get('member-a')).toContain('m1')
  })

  it('keeps what each member ran when nothing changed (no mirror moves in a stable group)', () => {
    const all = mirrors({ m1: 4, m2: 2, m3: 2, m4: 1 })
    const first = assignMirrors(all, [member('a'), member('b')])
    const again = assignMirrors(all, [member('b', first.get('member-b')!), member('a', first.get('member-a')!)])
    expect(again).toEqual(first)
  })

  it('hands only the departed member’s mirrors to the survivors', () => {
    const all = mirrors({ m1: 3, m2: 3, m3: 3, m4: 3, m5: 3, m6: 3 })
    const first = assignMirrors(all, [member('a'), member('b'), member('c')])
    const survivors = [member('a', first.get('member-a')!), member('c', first.get('member-c')!)]
    const after = assignMirrors(all, survivors)
    for (const name of first.get('member-a')!) expect(owners(after).get(name)).toBe('member-a')
    for (const name of first.get('member-c')!) expect(owners(after).get(name)).toBe('member-c')
    expect([...after.values()].flat().sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6'])
    expect([...assignedLoad(after, all).values()]).toEqual([9, 9])
  })

  it('moves to a joining member only what balance needs', () => {
    const all = mirrors({ m1: 2, m2: 2, m3: 2, m4: 2, m5: 2, m6: 2 })
    const two = assignMirrors(all, [member('a'), member('b')])
    const three = assignMirrors(all, [member('a', two.get('member-a')!), member('b', two.get('member-b')!), member('c')])
    const moved = [...owners(three)].filter(([name, owner]) => owners(two).get(name) !== owner)
    expect(moved.map(([, owner]) => owner)).toEqual(['member-c', 'member-c'])
    expect([...assignedLoad(three, all).values()]).toEqual([4, 4, 4])
  })

  it('decides a mirror two members both claim (after a split) the same way, for one of them only', () => {
    const all = mirrors({ m1: 1, m2: 5 })
    const claimed = [member('a', ['m1', 'm2']), member('b', ['m1'])]
    const assignment = assignMirrors(all, claimed)
    expect(assignment.get('member-a')).toEqual(['m2'])
    expect(assignment.get('member-b')).toEqual(['m1'])
    expect(assignMirrors(all, [...claimed].reverse())).toEqual(assignment)
  })

  it('drops mirrors that no longer exist and gives new ones to the least loaded member', () => {
    const all = mirrors({ kept: 4, fresh: 1 })
    const assignment = assignMirrors(all, [member('a', ['kept', 'deleted']), member('b')])
    expect(assignment.get('member-a')).toEqual(['kept'])
    expect(assignment.get('member-b')).toEqual(['fresh'])
  })

  it('leaves a mirror nobody runs yet with the member that created it, unmoved this round; once claimed it is balanced', () => {
    // b runs m1 and created m2 (its create still under way: the join b sent did not claim it yet); a runs nothing.
    const all: AssignableMirror[] = [{ name: 'm1', partitions: 3 }, { name: 'm2', partitions: 3, createdOn: 'b' }]
    const during = assignMirrors(all, [member('a'), member('b', ['m1'])])
    // m2 stays with b; balance moves what b ran before instead.
    expect(during.get('member-b')).toEqual(['m2'])
    expect(during.get('member-a')).toEqual(['m1'])
    // Alone with b, still under way: b runs both, nothing of m2 moves.
    const alone = [...all, { name: 'm3', partitions: 3 }]
    expect(assignMirrors(alone, [member('a', ['m3']), member('b', ['m1'])]).get('member-b')).toEqual(['m1', 'm2'])
    // The rebalance b asks for once the create has finished: b claims both, and one moves to a.
    const two = assignMirrors(all, [member('a'), member('b', ['m1', 'm2'])])
    expect([...assignedLoad(two, all).values()]).toEqual([3, 3])
    // A creator that is not a member (it left): the mirror goes to the least loaded member, like every unowned one.
    const creatorGone = assignMirrors(all, [member('a'), member('c', ['m1'])])
    expect(creatorGone.get('member-a')).toEqual(['m2'])
  })

  it('lists every member, with nothing to run when there are fewer mirrors than members', () => {
    const assignment = assignMirrors(mirrors({ only: 8 }), [member('a'), member('b'), member('c')])
    expect([...assignment.values()].filter((names) => names.length > 0)).toHaveLength(1)
    expect(assignment.size).toBe(3)
    expect(assignMirrors(mirrors({ only: 8 }), []).size).toBe(0)
  })
})
