import Link from 'next/link'
import { Panel } from '@/components/ui/panel'

/** A mirror's or cluster's page opened by a person whose scopes do not reach it: why, and a way back (the API says 403 too). */
export function OutOfScope({ what, reason }: { what: string; reason: string }) {
  return (
    <section className="mx-auto max-w-xl py-10">
      <Panel title={`${what} is outside your scope`}>
        <p className="text-sm text-slate-700 dark:text-slate-300">{`${reason.charAt(0).toUpperCase()}${reason.slice(1)}`}. Ask an administrator for a role that covers it.</p>
        <div className="mt-4 text-sm">
          <Link href="/" className="rounded-md px-3.5 py-1.5 font-medium text-indigo-700 underline hover:bg-indigo-50 dark:text-indigo-300 dark:hover:bg-slate-800">
            Back to the overview
          </Link>
        </div>
      </Panel>
    </section>
  )
}
