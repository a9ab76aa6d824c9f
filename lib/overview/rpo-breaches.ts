/**
 * The mirrors over their RPO objective now, for the overview's "Needs attention" (issue #34): its topology edge
 * and list already say "RPO breached"; the panel that tells an operator what to look at first must not say
 * "nothing needs attention" beside them. From the summaries' `objectives` (the figures the failover plan and the
 * alerts read): breached only, most records at risk first (then the oldest record, then the name). Pure.
 */
export interface RpoBreachInput {
  readonly name: string
  readonly objectives?: {
    readonly status: 'met' | 'breached' | 'unknown'
    readonly rpoRecords: number | null
    readonly rpoSeconds: number | null
    readonly records: number | null
    readonly seconds: number | null
    readonly known: boolean
  } | null
}

export interface RpoBreach {
  readonly mirror: string
  readonly records: number | null
  readonly seconds: number | null
  readonly known: boolean
  readonly rpoRecords: number | null
  readonly rpoSeconds: number | null
}

export function rpoBreaches(mirrors: readonly RpoBreachInput[]): RpoBreach[] {
  return mirrors
    .flatMap((mirror) => {
      const objectives = mirror.objectives
      if (objectives == null || objectives.status !== 'breached') return []
      return [{ mirror: mirror.name, records: objectives.records, seconds: objectives.seconds, known: objectives.known, rpoRecords: objectives.rpoRecords, rpoSeconds: objectives.rpoSeconds }]
    })
    .sort(compareRpoBreaches)
}

/** Most records at risk first, then most seconds, then by name. */
export function compareRpoBreaches(a: Pick<RpoBreach, 'records' | 'seconds' | 'mirror'>, b: Pick<RpoBreach, 'records' | 'seconds' | 'mirror'>): number {
  return (b.records ?? 0) - (a.records ?? 0) || (b.seconds ?? 0) - (a.seconds ?? 0) || a.mirror.localeCompare(b.mirror)
}
