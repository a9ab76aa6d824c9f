import Link from 'next/link'
import type { ReactNode } from 'react'
import { Panel } from '@/components/ui/panel'

/** A page the caller may not see: why (the API refuses it too), and a way back to the overview. */
export function AccessRefused({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto max-w-xl py-10">
      <Panel title={title}>
        <p className="text-sm text-slate-700 dark:text-slate-300">{children}</p>
        <div className="mt-4 text-sm">
          <Link prefetch={false} href="/" className="rounded-md px-3.5 py-1.5 font-medium text-indigo-700 underline hover:bg-indigo-50 dark:text-indigo-300 dark:hover:bg-slate-800">
            Back to the overview
          </Link>
        </div>
      </Panel>
    </section>
  )
}
