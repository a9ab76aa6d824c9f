import Link from 'next/link'
import { LoginForm } from '@/components/auth/login-form'
import { DemoSignIn } from '@/components/demo/demo-sign-in'
import { getPageSession } from '@/server/pages/session'
import { safeNextPath } from '@/lib/ui/next-path'
import { getRuntime } from '@/server/runtime'

export const metadata = { title: 'Sign in' }

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Only a path of this app: a `next` of "//evil.example", "/\\evil.example" or "https://…" would be an open redirect.
  const next = safeNextPath((await searchParams).next)
  const session = await getPageSession()
  // Only the demo offers a one-click sign-in; whether this browser may use it is the server's answer (DemoSignIn).
  const demo = (await getRuntime()).config.demo
  return (
    <section className="mx-auto mt-8 max-w-md">
      <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">Sign in to Mirrorboard</h1>
        {session === null ? (
          <p className="mt-1 mb-5 text-sm text-slate-600 dark:text-slate-300">Viewers see every page; operators can also pause, resume and fail over.</p>
        ) : (
          <p className="mt-1 mb-5 text-sm text-slate-600 dark:text-slate-300">
            You are signed in as <strong>{session.principal.role}</strong>.{' '}
            <Link href={next} className="font-medium text-indigo-700 underline dark:text-indigo-300">
              Continue
            </Link>{' '}
            or sign in with another token.
          </p>
        )}
        {demo && <DemoSignIn next={next} />}
        <LoginForm next={next} />
      </div>
    </section>
  )
}
