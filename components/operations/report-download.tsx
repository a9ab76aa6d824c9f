import { operationReportUrl } from '@/components/data/use-operation-report'
import { buttonClass } from '@/components/ui/button-class'

/**
 * The report as files: the Markdown post-mortem (timeline, objectives, markers, verification, where groups
 * resume) and the JSON. Plain links, so the browser streams them to disk with the session cookie.
 */
export function ReportDownload({ id, variant = 'secondary' }: { id: string; variant?: 'primary' | 'secondary' }) {
  return (
    <>
      <a href={operationReportUrl(id, 'md')} download={`failover-report-${id}.md`} className={buttonClass(variant)}>
        <span aria-hidden>↓</span> Download the post-mortem (Markdown)
      </a>
      <a href={operationReportUrl(id)} download={`failover-report-${id}.json`} className={buttonClass('secondary')}>
        <span aria-hidden>↓</span> Download the JSON report
      </a>
    </>
  )
}
