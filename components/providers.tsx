'use client'

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'

export function Providers({ children }: { children: ReactNode }) {
  // One client per browser tab; created lazily so server rendering never shares a cache between requests.
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 1_000, retry: 1, refetchOnWindowFocus: true } } }),
  )
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
}
