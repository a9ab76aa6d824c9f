import Link from 'next/link'
import { LoginForm } from '@/components/auth/login-form'
import { ProviderSignIn } from '@/components/auth/provider-sign-in'
import { DemoSignIn } from '@/components/demo/demo-sign-in'
import { signInErrorMessage } from '@/lib/auth/sign-in-errors'
import { getPageSession } from '@/server/pages/session'
import { safeNextPath } from '@/lib/ui/next-path'
import { getRuntime } from '@/server/runtime'

export const metadata = { title: 'Sign in' }

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = await searchParams
  // Only a path of this app: a `next` of "//evil.example", "/\\evil.example" or "https://…" would be an open redirect.
  const next = safeNextPath(search.next)
  const session = await getPageSession()
  const runtime = await getRuntime()
  // Only the demo offers a one-click sign-in; whether this browser may use it is the server's answer (DemoSignIn).
  const demo = runtime.config.demo
  const provider = runtime.identity?.info.name ?? null
  const tokens = runtime.auth.tokenSignIn
  // Only a known reason's own words are shown: the address is anyone's to craft (lib/auth/sign-in-errors.ts).
  const refused = signInErrorMessage(typeof search.signInError === 'string' ? search.signInError : undefined)
  const signedOut = search.signedOut === '1' && session === null
  const who = session === null ? null : session.principal.method === 'oidc' ? (session.principal.name ?? session.principal.email ?? session.principal.subject) : session.principal.role
  return (
    <section className="mx-auto mt-8 max-w-md">
      <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">Sign in to Mirrorboard</h1>
        {session === null ? (
          <p className="mt-1 mb-5 text-sm text-slate-600 dark:text-slate-300">Viewers see every page; operators can also pause, resume and fail over.</p>
        ) : (
          <p className="mt-1 mb-5 text-sm text-slate-600 dark:text-slate-300">
            You are signed in as <strong>{who}</strong>.{' '}
            <Link prefetch={false} href={next} className="font-medium text-indigo-700 underline dark:text-indigo-300">
              Continue
            </Link>{' '}
            or sign in {tokens ? 'again' : 'as someone else'}.
          </p>
        )}
        {refused !== null && (
          <div role="alert" className="mb-4 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/60 dark:text-red-100">
            <p className="font-medium">Sign-in refused</p>
            <p className="mt-0.5">{refused}</p>
          </div>
        )}
        {signedOut && (
          <p role="status" className="mb-4 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-200">
            You are signed out{provider === null ? '' : `, here and at ${provider}`}.
          </p>
        )}
        {demo && <DemoSignIn next={next} />}
        {provider !== null && <ProviderSignIn provider={provider} next={next} primary />}
        {provider !== null && tokens && (
          <p className="my-4 flex items-center gap-3 text-xs text-slate-500 dark:text-slate-400">
            <span aria-hidden className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
            or with an access token
            <span aria-hidden className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
          </p>
        )}
        {tokens && <LoginForm next={next} />}
        {!tokens && provider === null && (
          <p className="text-sm text-slate-700 dark:text-slate-200">Signing in with a token is turned off here and no identity provider is configured: ask your administrator.</p>
        )}
      </div>
    </section>
  )
}
