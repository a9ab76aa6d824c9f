import { MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '../mirror/constants'
import { formatCount, formatOffset } from './format'

/** A FAILED partition's divergence as the API answers it (MirrorPartition.divergence). */
export interface DivergenceFigures {
  readonly epoch: number
  readonly offset: number
  readonly truncateTo: number | null
  readonly recordsToCut: number
  readonly logEndOffset: number
}

function records(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'record' : 'records'}`
}

/** The table row's words: "diverged at epoch 4 · 10 records would be cut". */
export function divergenceShort(divergence: DivergenceFigures): string {
  const cut = divergence.recordsToCut === 0 ? 'nothing to cut' : `${records(divergence.recordsToCut)} would be cut`
  return `diverged at epoch ${divergence.epoch} · ${cut}`
}

/**
 * The partition page's account (KIP-1279.md §3.5): where the source's history leaves the destination's log, the
 * records a truncation would remove (offsets from–to), why nothing was cut, and the two ways on.
 */
export function divergenceLong(divergence: DivergenceFigures): { what: string; cut: string; next: string } {
  const from = divergence.truncateTo ?? 0
  const last = divergence.logEndOffset - 1
  const what = `The source's history diverges at leader epoch ${divergence.epoch}, which ends at offset ${formatOffset(divergence.offset)} on the source: an unclean leader election there replaced records the destination already holds.`
  const cut =
    divergence.recordsToCut === 0
      ? 'The destination holds nothing beyond that point: a truncation would remove no record.'
      : `${divergence.truncateTo === null ? `All the destination's records (${records(divergence.recordsToCut)})` : `The destination's records from offset ${formatOffset(from)}${last > from ? ` to ${formatOffset(last)}` : ''} (${records(divergence.recordsToCut)})`} are not in the source's log; a truncation would cut them, and ${MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION} is off for this topic, so nothing was cut.`
  const next = `Turn ${MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION} on for the topic and recover to cut them and mirror on, or fail over to keep the destination's records.`
  return { what, cut, next }
}
