import Link from 'next/link'

/** In the demo environment: say so, and lead operators to the control room. */
export function DemoBanner({ canOperate }: { canOperate: boolean }) {
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-2.5 text-sm text-indigo-950 dark:border-indigo-900 dark:bg-indigo-950/50 dark:text-indigo-100">
      <span className="font-semibold">Demo environment</span>
      <span>Clusters, workloads and faults here are simulated for trying things out.</span>
      {canOperate ? (
        <Link prefetch={false} href="/demo" className="ml-auto font-medium text-indigo-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-300">
          Open the demo control room →
        </Link>
      ) : (
        <span className="ml-auto text-indigo-800 dark:text-indigo-200">Sign in as an operator to run scenarios and faults.</span>
      )}
    </div>
  )
}
