import type { Metadata } from 'next'
import { AuditLog } from '@/components/audit/audit-log'
import { auditFiltersToSearch, parseAuditFilters } from '@/lib/ui/audit-filters'
import { requirePageSession } from '@/server/pages/session'

export const metadata: Metadata = { title: 'Audit log' }

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseAuditFilters(await searchParams)
  await requirePageSession(`/audit${auditFiltersToSearch(filters)}`)
  return <AuditLog initialFilters={filters} />
}
