import type { Fault } from '@/lib/api/demo'

/**
 * What each fault does, in one sentence, shown before it is injected (the server's own `summary` comes with a
 * fault once it exists, and says the same in more words).
 */
export const FAULT_KIND_TEXT = {
  'stop-broker': {
    title: 'Stop or start a broker',
    sentence: 'Leaders on the stopped broker move to other in-sync replicas and the ISR shrinks; mirroring carries on from the new leaders.',
  },
  'cut-link': {
    title: 'Cut or heal a link',
    sentence: 'Cuts the cluster off from every other cluster: mirror fetches fail, lag grows, partitions go FAILED and retry with backoff until the link heals.',
  },
  'unclean-election': {
    title: 'Unclean leader election',
    sentence: 'A lagging replica becomes leader and the last 5 records are lost at the source; a mirror that copied them must detect the divergence.',
  },
  'hanging-transaction': {
    title: 'Hanging transaction',
    sentence: 'A producer opens a transaction and never commits, holding the last stable offset back until it is healed (aborted).',
  },
  'bit-rot': {
    title: 'Bit rot',
    sentence: "Flips one byte of a record's value on the leader's disk: reads still answer, wrongly, and only a verification notices (healing puts the byte back).",
  },
} as const satisfies Record<Fault['kind'], { title: string; sentence: string }>

/** "broker 2 of us-east", "orders-0 on us-east": what a fault hit. */
export function faultPlace(fault: Pick<Fault, 'kind' | 'cluster' | 'broker' | 'topic' | 'partition'>): string {
  if (fault.broker !== null) return `broker ${fault.broker} of ${fault.cluster}`
  if (fault.topic !== null) return `${fault.topic}-${fault.partition ?? 0} on ${fault.cluster}`
  return fault.cluster
}

export const FAULT_LABEL = {
  'stop-broker': 'Broker stopped',
  'cut-link': 'Link cut',
  'unclean-election': 'Unclean election',
  'hanging-transaction': 'Hanging transaction',
  'bit-rot': 'Bit rot',
} as const satisfies Record<Fault['kind'], string>
