import type { Verification, VerificationSummary } from '@/lib/api/verifications'
import { formatBytes, formatCount } from '@/lib/ui/format'
import { progressOf } from '@/lib/ui/verification-view'

/** How far a verification got: a bar with its percentage in words, offsets and bytes compared. */
export function VerificationProgress({ verification }: { verification: Verification | VerificationSummary }) {
  const share = progressOf(verification)
  const percent = Math.floor(share * 100)
  const { totals } = verification
  return (
    <div className="flex flex-col gap-1">
      <div className="h-2 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-label="Offsets compared">
        <div className="h-full rounded-full bg-sky-600 dark:bg-sky-400" style={{ width: `${percent}%` }} />
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {percent}% · {formatCount(totals.verifiedOffsets)} of {formatCount(totals.offsets)} offsets · {formatBytes(totals.bytes)} of the source compared · {totals.done} of {totals.partitions} partitions done
      </p>
    </div>
  )
}
