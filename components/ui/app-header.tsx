import Link from 'next/link'
import { HealthStatus } from '@/components/health/health-status'

export function AppHeader() {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex w-full max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6 lg:px-8">
        <Link href="/" className="flex items-center gap-2 text-lg font-semibold tracking-tight text-slate-900">
          <span aria-hidden className="grid h-7 w-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
            M
          </span>
          Mirrorboard
        </Link>
        <HealthStatus />
      </div>
    </header>
  )
}
