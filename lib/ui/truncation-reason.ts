/**
 * Why a destination log was truncated, in an operator's words instead of the API's raw values (`fromScratch`,
 * `failback`, `uncleanLeaderElection`): one table for the partition table, the partition page, its logs and the
 * start-topics plan. An unknown value is shown as it is rather than hidden.
 */
const TRUNCATION_REASONS: Readonly<Record<string, { readonly short: string; readonly long: string }>> = {
  fromScratch: { short: 'new mirror', long: 'new on the destination: copied from the source’s log start' },
  failback: { short: 'failback', long: 'aligned on the last mirror position' },
  uncleanLeaderElection: { short: 'source diverged', long: 'source diverged (unclean election)' },
}

export function truncationReason(reason: string, form: 'short' | 'long' = 'long'): string {
  return Object.hasOwn(TRUNCATION_REASONS, reason) ? TRUNCATION_REASONS[reason]![form] : reason
}
