import type { Metadata, Viewport } from 'next'
import { headers } from 'next/headers'
import type { ReactNode } from 'react'
import { Providers } from '@/components/providers'
import { AppHeader } from '@/components/ui/app-header'
import { ConnectionBanner } from '@/components/ui/connection-banner'
import { NavigationProgress } from '@/components/ui/navigation-progress'
import { THEME_SCRIPT } from '@/components/ui/theme'
import { BROWSER_ZOD_JITLESS_SCRIPT, NONCE_REQUEST_HEADER } from '@/server/http/security-headers'
import { getPageSession } from '@/server/pages/session'
import './globals.css'

export const metadata: Metadata = {
  title: { default: 'Mirrorboard', template: '%s · Mirrorboard' },
  description: 'Kafka cluster mirroring (KIP-1279): topology, lag, truncation points and guided failover.',
}

export const viewport: Viewport = { width: 'device-width', initialScale: 1 }

// Every page shows who is signed in, so none is prerendered at build time.
export const dynamic = 'force-dynamic'

export default async function RootLayout({ children }: { children: ReactNode }) {
  const info = await getPageSession()
  const session =
    info === null
      ? null
      : {
          role: info.principal.role,
          demo: info.demo,
          grants: info.principal.grants,
          method: info.principal.method,
          name: info.principal.name ?? null,
          email: info.principal.email ?? null,
        }
  // One clock for the server's render and the browser's hydration: relative times need not be redrawn after it.
  // eslint-disable-next-line react-hooks/purity -- a server component renders once per request: this is its clock.
  const renderedAt = Date.now()
  // server/main.ts allows inline scripts by a per-request nonce only (server/http/security-headers.ts).
  const nonce = (await headers()).get(NONCE_REQUEST_HEADER) ?? undefined
  return (
    // No <head> of ours: React hydrates the head's children (Next's own, ours) with one cursor it sets aside while
    // inside the head; a hydration slowed and resumed (a phone, a busy machine) came back to the body with that
    // cursor still in the head (on its <meta charset>), failed on the header with error #418 and rendered the whole
    // page again (e2e/hydration.spec.ts). The two scripts run first thing in the body, still before any paint.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: BROWSER_ZOD_JITLESS_SCRIPT }} />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
        <Providers session={session} renderedAt={renderedAt}>
          <NavigationProgress />
          <AppHeader session={session} />
          <ConnectionBanner />
          <main className="mx-auto w-full max-w-7xl px-4 py-6 sm:px-6 lg:px-8">{children}</main>
        </Providers>
      </body>
    </html>
  )
}
