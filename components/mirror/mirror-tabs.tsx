'use client'

import Link from 'next/link'
import { usePathname, useSearchParams } from 'next/navigation'

export const MIRROR_TABS = [
  { tab: 'partitions', title: 'Partitions' },
  { tab: 'drills', title: 'Drills' },
  { tab: 'verifications', title: 'Verifications' },
] as const

export type MirrorTab = (typeof MIRROR_TABS)[number]['tab']

/** The tab in the URL (`?tab=drills`), so a tab can be linked to and survives a reload; partitions by default. */
export function useMirrorTab(): MirrorTab {
  const tab = useSearchParams().get('tab')
  return MIRROR_TABS.find((entry) => entry.tab === tab)?.tab ?? 'partitions'
}

/** The mirror page's sections as links (each is a URL of its own), the current one marked for assistive technology too. */
export function MirrorTabs({ current, badges = {} }: { current: MirrorTab; badges?: Partial<Record<MirrorTab, string>> }) {
  const pathname = usePathname()
  return (
    <nav aria-label="Mirror sections" className="border-b border-slate-200 dark:border-slate-800">
      <ul className="-mb-px flex gap-1 overflow-x-auto">
        {MIRROR_TABS.map(({ tab, title }) => {
          const active = tab === current
          return (
            <li key={tab}>
              <Link prefetch={false}
                href={tab === 'partitions' ? pathname : `${pathname}?tab=${tab}`}
                aria-current={active ? 'page' : undefined}
                scroll={false}
                className={`inline-flex items-center gap-1.5 border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                  active ? 'border-indigo-600 text-indigo-800 dark:border-indigo-400 dark:text-indigo-200' : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100'
                }`}
              >
                {title}
                {badges[tab] !== undefined && <span className="rounded-full bg-slate-100 px-1.5 py-px text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">{badges[tab]}</span>}
              </Link>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
