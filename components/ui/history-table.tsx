import Link from 'next/link'
import type { ReactNode } from 'react'
import { RelativeTime } from '@/components/ui/relative-time'
import { StatusBadge } from '@/components/ui/status-badge'
import type { StatusStyle } from '@/lib/ui/status-style'

/**
 * The shell of a mirror tab's history (drills, verifications): a table that scrolls inside its box on a phone,
 * its headings, and the two cells every row starts with — when it started (a link to the run's page) and how it
 * ended — so the tabs read alike and differ only in their own columns.
 */
export function HistoryTable({ minWidth, columns, children }: { minWidth: string; columns: ReadonlyArray<{ label: string; numeric?: boolean }>; children: ReactNode }) {
  return (
    <div className="overflow-x-auto">
      <table className={`w-full ${minWidth} text-left text-sm`}>
        <thead className="text-xs text-slate-600 uppercase dark:text-slate-400">
          <tr>
            {columns.map((column, index) => (
              <th key={column.label} scope="col" className={`py-2 ${index < columns.length - 1 ? 'pr-3' : ''} ${column.numeric ? 'text-right' : ''}`}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">{children}</tbody>
      </table>
    </div>
  )
}

export function StartedCells({ href, startedAt, look }: { href: string; startedAt: number; look: StatusStyle }) {
  return (
    <>
      <td className="py-2 pr-3">
        <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={href}>
          <RelativeTime at={startedAt} />
        </Link>
      </td>
      <td className="py-2 pr-3">
        <StatusBadge look={look} />
      </td>
    </>
  )
}
