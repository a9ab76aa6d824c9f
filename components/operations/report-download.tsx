import { operationReportUrl } from '@/components/data/use-operation-report'
import { buttonClass } from '@/components/ui/button-class'

/** The JSON report as a file: a plain link, so the browser streams it to disk with the session cookie. */
export function ReportDownload({ id, variant = 'secondary' }: { id: string; variant?: 'primary' | 'secondary' }) {
  return (
    <a href={operationReportUrl(id)} download={`failover-report-${id}.json`} className={buttonClass(variant)}>
      <span aria-hidden>↓</span> Download the JSON report
    </a>
  )
}
