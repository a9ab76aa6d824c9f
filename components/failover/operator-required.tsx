import Link from 'next/link'

/**
 * What someone without the operator role here sees on a wizard URL: why (a viewer; an operator of other
 * mirrors), and where to get it.
 */
export function OperatorRequired({ action, path, reason }: { action: string; path: string; reason?: string | undefined }) {
  return (
    <section role="alert" className="mx-auto max-w-xl rounded-lg border border-amber-300 bg-amber-50 p-5 text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-50">
      <h2 className="text-lg font-semibold">This needs the operator role</h2>
      <p className="mt-1 text-sm">
        {reason === undefined ? `You are signed in as a viewer. To ${action}, sign in with an operator token.` : `To ${action}: ${reason}. Ask an administrator for it, or sign in as someone who has it.`}
      </p>
      <Link prefetch={false}
        className="mt-3 inline-flex rounded-md bg-indigo-600 px-3.5 py-1.5 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        href={`/login?next=${encodeURIComponent(path)}`}
      >
        Sign in as an operator
      </Link>
    </section>
  )
}
