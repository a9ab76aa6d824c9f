import Link from 'next/link'

/** A real not-found page: what was not found and a way back. */
export function NotFoundPanel({ what, detail, backHref = '/', backLabel = 'Back to the overview' }: { what: string; detail?: string; backHref?: string; backLabel?: string }) {
  return (
    <section className="mx-auto max-w-xl py-16 text-center">
      <p className="font-mono text-sm font-semibold text-indigo-600 dark:text-indigo-400">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">{what}</h1>
      {detail && <p className="mt-2 text-slate-600 dark:text-slate-300">{detail}</p>}
      <Link prefetch={false}
        href={backHref}
        className="mt-6 inline-flex rounded-md bg-indigo-600 px-3.5 py-1.5 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        {backLabel}
      </Link>
    </section>
  )
}
