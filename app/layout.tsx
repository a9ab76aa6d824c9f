import type { Metadata, Viewport } from 'next'
import type { ReactNode } from 'react'
import { AppHeader } from '@/components/ui/app-header'
import { Providers } from '@/components/providers'
import './globals.css'

export const metadata: Metadata = {
  title: 'Mirrorboard',
  description: 'Kafka cluster mirroring (KIP-1279): topology, lag, truncation points and guided failover.',
}

export const viewport: Viewport = { width: 'device-width', initialScale: 1 }

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <Providers>
          <AppHeader />
          <main className="mx-auto w-full max-w-7xl px-4 py-6 sm:px-6 lg:px-8">{children}</main>
        </Providers>
      </body>
    </html>
  )
}
