import Link from 'next/link'

export interface Crumb {
  readonly label: string
  /** The page itself has none: it is the last crumb, marked as the current page. */
  readonly href?: string
}

/** Where a page sits (UI.md §1's routes): links up to the overview, the current page last. */
export function Breadcrumbs({ trail }: { trail: readonly Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-slate-600 dark:text-slate-300">
      <ol className="flex flex-wrap items-center gap-1">
        {trail.map((crumb, index) => (
          <li key={`${index}-${crumb.label}`} className="flex min-w-0 items-center gap-1">
            {index > 0 && <span aria-hidden>/</span>}
            {crumb.href === undefined ? (
              <span aria-current="page" className="break-all text-slate-900 dark:text-white">
                {crumb.label}
              </span>
            ) : (
              <Link prefetch={false} href={crumb.href} className="rounded break-all hover:text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:hover:text-white">
                {crumb.label}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  )
}
