import Link from 'next/link'
import { AlertBell } from '@/components/alerts/alert-bell'
import type { PageSession } from '@/components/data/session-context'
import { allows } from '@/lib/auth/grants'
import { LiveIndicator } from './live-indicator'
import { NavLinks, type NavItem } from './nav-links'
import { SignOutButton } from './sign-out-button'
import { SignedInAs } from './signed-in-as'
import { ThemeSwitch } from './theme-switch'

export function AppHeader({ session }: { session: PageSession | null }) {
  const items: NavItem[] = session === null ? [] : [
          { href: '/', label: 'Overview' },
          { href: '/mirrors', label: 'Mirrors' },
          { href: '/clusters', label: 'Clusters' },
          { href: '/alerts', label: 'Alerts' },
          { href: '/audit', label: 'Audit' },
        ]
  if (session?.demo && session.role === 'operator') items.push({ href: '/demo', label: 'Demo' })
  if (session !== null && allows(session.grants, 'admin', null)) items.push({ href: '/tokens', label: 'Tokens' })
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <div className="mx-auto flex w-full max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2.5 sm:px-6 lg:px-8">
        <Link prefetch={false}
          href="/"
          className="flex items-center gap-2 rounded-md text-base font-semibold tracking-tight text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-white"
        >
          <span aria-hidden className="grid h-7 w-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
            M
          </span>
          Mirrorboard
        </Link>
        {items.length > 0 && <NavLinks items={items} />}
        {/* min-w-0 and flex-wrap: however wide the live status, the alert count and the role badge grow, these
            controls wrap inside the header instead of widening a phone's page (the header never scrolls sideways). */}
        <div className="ml-auto flex min-w-0 flex-wrap items-center justify-end gap-2">
          {session !== null && <LiveIndicator />}
          {session !== null && <AlertBell />}
          {session !== null ? (
            <span className="flex min-w-0 items-center gap-1">
              <SignedInAs session={session} />
              <SignOutButton />
            </span>
          ) : (
            <Link prefetch={false} href="/login" className="rounded-md px-2 py-1 text-sm font-medium text-indigo-700 hover:bg-indigo-50 dark:text-indigo-300 dark:hover:bg-slate-800">
              Sign in
            </Link>
          )}
          <ThemeSwitch />
        </div>
      </div>
    </header>
  )
}
