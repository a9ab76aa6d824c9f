'use client'

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { isApiError } from '@/lib/api/errors'
import { EventStreamProvider } from './data/event-stream'
import { SessionProvider, type PageSession } from './data/session-context'
import { RenderTimeProvider } from './ui/relative-time'
import { ThemeProvider } from './ui/theme'

function retryUnlessRefused(failureCount: number, error: unknown): boolean {
  // A coded refusal (404, 403, 400) will not change on a retry; a lost connection may.
  if (isApiError(error) && error.code !== 'INTERNAL' && error.code !== 'SOURCE_UNAVAILABLE') return false
  return failureCount < 2
}

/** `renderedAt`: the server's clock when it rendered the page, the clock of the first render on both sides. */
export function Providers({ session, renderedAt = 0, children }: { session: PageSession | null; renderedAt?: number; children: ReactNode }) {
  // One client per browser tab; created lazily so server rendering never shares a cache between requests.
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { staleTime: 5_000, retry: retryUnlessRefused, refetchOnWindowFocus: true }, mutations: { retry: false } },
      }),
  )
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider>
        <SessionProvider session={session}>
          <RenderTimeProvider at={renderedAt}>
            <EventStreamProvider enabled={session !== null}>{children}</EventStreamProvider>
          </RenderTimeProvider>
        </SessionProvider>
      </ThemeProvider>
    </QueryClientProvider>
  )
}
