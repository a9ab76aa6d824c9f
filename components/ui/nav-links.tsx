'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

export interface NavItem {
  readonly href: string
  readonly label: string
}

function isActive(pathname: string, href: string): boolean {
  // Cluster pages belong to the clusters list; mirror pages (and creating one) to the overview, where mirrors are drawn.
  if (href === '/') return pathname === '/' || pathname.startsWith('/mirrors') || pathname.startsWith('/create/')
  return pathname.startsWith(href)
}

export function NavLinks({ items }: { items: readonly NavItem[] }) {
  const pathname = usePathname()
  return (
    <nav aria-label="Main" className="flex items-center gap-1">
      {items.map((item) => {
        const active = isActive(pathname, item.href)
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={active ? 'page' : undefined}
            className={`rounded-md px-2.5 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-500 ${
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
