import type { Metadata } from 'next'
import { AlertsPage } from '@/components/alerts/alerts-page'
import { requirePageSession } from '@/server/pages/session'

export const metadata: Metadata = { title: 'Alerts' }

export default async function Alerts() {
  await requirePageSession('/alerts')
  return <AlertsPage />
}
