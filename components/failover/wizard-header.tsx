import Link from 'next/link'
import type { ReactNode } from 'react'

/** The wizard page's title: what it does to which mirror, source → destination, and a way back. */
export function WizardHeader({ title, mirror, from, to, children }: { title: string; mirror: string; from: string; to: string; children?: ReactNode }) {
  return (
    <header className="mb-5 space-y-1">
      <p className="text-sm">
        <Link prefetch={false} className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300" href={`/mirrors/${encodeURIComponent(mirror)}`}>
          ← Mirror {mirror}
        </Link>
      </p>
      <h1 className="text-2xl font-semibold tracking-tight break-words">{title}</h1>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        <span className="font-mono">{from}</span> <span aria-label="to">→</span> <span className="font-mono">{to}</span>
      </p>
      {children}
    </header>
  )
}
