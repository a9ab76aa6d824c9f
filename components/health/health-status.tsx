'use client'

import { useHealth } from './use-health'

const TONE = {
  ok: 'bg-emerald-50 text-emerald-800 ring-emerald-600/30',
  checking: 'bg-slate-50 text-slate-700 ring-slate-500/30',
  down: 'bg-red-50 text-red-800 ring-red-600/30',
} as const satisfies Record<string, string>

const DOT = { ok: 'bg-emerald-500', checking: 'bg-slate-400', down: 'bg-red-500' } as const satisfies Record<keyof typeof TONE, string>

export function HealthStatus() {
  const health = useHealth()
  const tone: keyof typeof TONE = health.isError ? 'down' : health.data ? 'ok' : 'checking'
  const label =
    tone === 'down' ? 'Server unreachable' : tone === 'ok' ? `Server healthy · v${health.data?.version}` : 'Checking server…'
  return (
    <span
      role="status"
      aria-label="Server health"
      data-health={tone}
      className={`inline-flex items-center gap-2 rounded-full px-3 py-1 text-sm font-medium ring-1 ring-inset ${TONE[tone]}`}
    >
      <span aria-hidden className={`h-2 w-2 rounded-full ${DOT[tone]}`} />
      {label}
    </span>
  )
}
