'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

export interface NavItem {
  readonly href: string
  readonly label: string
}

/** Pages that belong to the Mirrors item: a mirror's own pages, and what runs on a mirror (operations, drills, verifications, creating one). */
const MIRROR_PAGES = ['/mirrors', '/operations', '/drills', '/verifications', '/create/']

export function isActive(pathname: string, href: string): boolean {
  if (href === '/') return pathname === '/'
  if (href === '/mirrors') return MIRROR_PAGES.some((prefix) => pathname === prefix || pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`))
  return pathname === href || pathname.startsWith(`${href}/`)
}

// Not prefetched (nor the header's other links, breadcrumbs and the partition header's): every page is rendered per
// request, so each prefetch made the server render a whole page and the phone parse its payload while the page
// loaded (8 to 16 of them on a partition page, Lighthouse's total blocking time). A click fetches the page then.
export function NavLinks({ items }: { items: readonly NavItem[] }) {
  const pathname = usePathname()
  return (
    <nav aria-label="Main" className="-mx-1 flex max-w-full items-center gap-1 overflow-x-auto px-1 max-sm:order-last max-sm:w-full">
      {items.map((item) => {
        const active = isActive(pathname, item.href)
        return (
          <Link prefetch={false}
            key={item.href}
            href={item.href}
            aria-current={active ? 'page' : undefined}
            className={`rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
              active
                ? 'bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-white'
                : 'text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white'
            }`}
          >
            {item.label}
          </Link>
        )
      })}
    </nav>
  )
}
