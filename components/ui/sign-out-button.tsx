'use client'

import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { sessionEndpoints } from '@/lib/api/routes'

export function SignOutButton() {
  const router = useRouter()
  const [pending, setPending] = useState(false)
  return (
    <button
      type="button"
      disabled={pending}
      onClick={async () => {
        setPending(true)
        let endSessionUrl: string | null = null
        try {
          endSessionUrl = (await callEndpoint(sessionEndpoints.signOut)).endSessionUrl
        } finally {
          // A provider sign-in also ends at the provider (RP-initiated logout), which sends the browser back to /login.
          if (endSessionUrl !== null) window.location.assign(endSessionUrl)
          else {
            router.push('/login')
            router.refresh()
          }
        }
      }}
      className="rounded-md px-2 py-1 text-sm whitespace-nowrap text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-50 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
    >
      Sign out
    </button>
  )
}
