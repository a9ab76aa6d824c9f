import type { AttentionResponse } from '@/lib/api/attention'
import { compareAttention, compareAttentionGroups } from './attention'
import { compareRpoBreaches } from './rpo-breaches'

/**
 * "Needs attention" across several instances (docs/high-availability.md, "One API from any instance"): each instance
 * answers for the mirrors it runs, and the overview shows one answer. The items are the worst `limit` of all the
 * answers' (each holds its worst `limit`, so the worst `limit` overall are among them); groups, totals and RPO
 * breaches are never cut, so they add up. A mirror two answers name (caught moving between instances) keeps the
 * first answer's findings.
 */
export function mergeAttention(own: AttentionResponse, others: readonly AttentionResponse[], limit: number): AttentionResponse {
  const mirrorsOf = (answer: AttentionResponse) => new Set([...answer.items.map((item) => item.mirror), ...(answer.groups ?? []).map((group) => group.mirror), ...answer.rpoBreaches.map((breach) => breach.mirror)])
  const seen = mirrorsOf(own)
  const items = [...own.items]
  const groups = [...(own.groups ?? [])]
  const rpoBreaches = [...own.rpoBreaches]
  const totals = { ...own.totals }
  for (const answer of others) {
    const theirs = mirrorsOf(answer)
    const fresh = (mirror: string) => !seen.has(mirror)
    items.push(...answer.items.filter((item) => fresh(item.mirror)))
    const freshGroups = (answer.groups ?? []).filter((group) => fresh(group.mirror))
    groups.push(...freshGroups)
    rpoBreaches.push(...answer.rpoBreaches.filter((breach) => fresh(breach.mirror)))
    if (answer.groups !== undefined) {
      for (const group of freshGroups) totals[group.kind] += group.partitions
    } else {
      for (const kind of Object.keys(totals) as Array<keyof typeof totals>) totals[kind] += answer.totals[kind]
    }
    for (const mirror of theirs) seen.add(mirror)
  }
  return {
    ...own,
    items: items.sort((a, b) => compareAttention(a as Parameters<typeof compareAttention>[0], b as Parameters<typeof compareAttention>[0])).slice(0, limit),
    ...(own.groups === undefined ? {} : { groups: groups.sort(compareAttentionGroups) }),
    totals,
    rpoBreaches: rpoBreaches.sort(compareRpoBreaches),
  }
}
