'use client'

import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { useDemoSignInOffer } from '@/components/data/use-demo'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { safeNextPath } from '@/lib/ui/next-path'
import { demoEndpoints } from '@/lib/api/routes'

/**
 * The demo's one-click operator sign-in. The server alone knows whether this browser may use it (demo mode,
 * and a request from this machine to a loopback name), so the button appears only once
 * `GET /demo/session` said yes; anywhere else that answers 404 and nothing is shown.
 */
export function DemoSignIn({ next }: { next: string }) {
  const router = useRouter()
  const offered = useDemoSignInOffer()
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  if (offered.data?.oneClickSignIn !== true) return null

  async function signIn() {
    setPending(true)
    setError(null)
    try {
      await callEndpoint(demoEndpoints.createDemoSession)
      setDone(true)
      // Checked again here: whoever renders this form, it never navigates off this origin.
      router.replace(safeNextPath(next))
      router.refresh()
    } catch (caught) {
      setError(caught)
      setPending(false)
    }
  }

  return (
    <div className="mb-5">
      <div className="space-y-3 rounded-lg border border-indigo-200 bg-indigo-50/60 p-4 dark:border-indigo-900 dark:bg-indigo-950/40">
      <p className="text-sm text-slate-700 dark:text-slate-300">This server runs the demo and you are on the same machine: no token needed.</p>
      <button type="button" onClick={() => void signIn()} disabled={pending} className={`${buttonClass('primary')} w-full`}>
        {pending ? 'Signing in…' : 'Sign in as operator (demo)'}
      </button>
      {error !== null && <ErrorPanel error={error} title="One-click sign-in refused" compact />}
      {done && (
        <p role="status" className="text-sm font-medium text-emerald-700 dark:text-emerald-300">
          Signed in as operator. Opening the dashboard…
        </p>
      )}
      </div>
      <p className="mt-5 flex items-center gap-3 text-xs text-slate-500 uppercase dark:text-slate-400" aria-hidden>
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
        or with a token
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
      </p>
    </div>
  )
}
