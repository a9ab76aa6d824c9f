'use client'

import { useRouter } from 'next/navigation'
import { useState, type FormEvent } from 'react'
import { callEndpoint } from '@/components/data/call-endpoint'
import { buttonClass } from '@/components/ui/button-class'
import { ErrorPanel } from '@/components/ui/error-panel'
import { safeNextPath } from '@/lib/ui/next-path'
import { sessionEndpoints } from '@/lib/api/routes'
import type { Role } from '@/lib/api/session'

/** Exchanges a token for a session cookie, says which role it carries, then goes where the user was headed. */
export function LoginForm({ next }: { next: string }) {
  const router = useRouter()
  const [token, setToken] = useState('')
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [signedInAs, setSignedInAs] = useState<Role | null>(null)

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (pending) return
    setPending(true)
    setError(null)
    try {
      const session = await callEndpoint(sessionEndpoints.createSession, { body: { token: token.trim() } })
      setSignedInAs(session.role)
      setToken('')
      // Checked again here: whoever renders this form, it never navigates off this origin.
      router.replace(safeNextPath(next))
      router.refresh()
    } catch (caught) {
      setError(caught)
      setPending(false)
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate data-next={safeNextPath(next)}>
      <div>
        <label htmlFor="token" className="block text-sm font-medium text-slate-800 dark:text-slate-200">
          Access token
        </label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
          aria-describedby="token-help"
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-sm text-slate-900 shadow-sm focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
        />
        <p id="token-help" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          The operator or viewer token: <code className="font-mono">MIRRORBOARD_OPERATOR_TOKEN</code> / <code className="font-mono">MIRRORBOARD_VIEWER_TOKEN</code>, or{' '}
          <code className="font-mono">&lt;dataDir&gt;/tokens.json</code>.
        </p>
      </div>
      {error !== null && <ErrorPanel error={error} title="Sign-in refused" compact />}
      {signedInAs !== null && (
        <p role="status" className="text-sm font-medium text-emerald-700 dark:text-emerald-300">
          Signed in as {signedInAs}. Opening the dashboard…
        </p>
      )}
      <button type="submit" disabled={pending || token.trim() === ''} className={`${buttonClass('primary')} w-full`}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
