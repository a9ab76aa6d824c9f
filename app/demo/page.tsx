import { HydrationBoundary } from '@tanstack/react-query'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { ControlRoom } from '@/components/demo/control-room'
import { Panel } from '@/components/ui/panel'
import { clusterEndpoints, demoEndpoints } from '@/lib/api/endpoints'
import { clusterApiOf } from '@/server/api/cluster-api'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export const metadata = { title: 'Demo control room' }

/** The demo's control room (UI.md §1: operators, and only while the server runs the demo). */
export default async function DemoPage() {
  const runtime = await getRuntime()
  // Outside demo mode the route does not exist, whoever asks (as every /api/v1/demo/* answers 404).
  if (runtime.demo === null) notFound()
  const session = await requirePageSession('/demo')
  if (session.principal.role !== 'operator') {
    return (
      <section className="mx-auto max-w-xl py-10">
        <Panel title="The demo control room needs the operator role">
          <p className="text-sm text-slate-700 dark:text-slate-300">
            You are signed in as a <strong>viewer</strong>. Starting scenarios, changing workloads and injecting faults change the demo&apos;s clusters, so
            they need an operator token.
          </p>
          <div className="mt-4 flex flex-wrap gap-3 text-sm">
            <Link prefetch={false} href="/login?next=%2Fdemo" className="rounded-md bg-indigo-600 px-3.5 py-1.5 font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600">
              Sign in as operator
            </Link>
            <Link prefetch={false} href="/" className="rounded-md px-3.5 py-1.5 font-medium text-indigo-700 underline hover:bg-indigo-50 dark:text-indigo-300 dark:hover:bg-slate-800">
              Back to the overview
            </Link>
          </div>
        </Panel>
      </section>
    )
  }
  const demo = runtime.demo
  const state = dehydrateAnswers([
    { endpoint: demoEndpoints.getDemo, value: demo.status() },
    { endpoint: demoEndpoints.listWorkloads, value: { workloads: demo.workloads.list() } },
    { endpoint: demoEndpoints.listFaults, value: { faults: demo.faults.active() } },
    { endpoint: demoEndpoints.listScenarios, value: { scenarios: demo.runs.catalog() } },
    { endpoint: demoEndpoints.listRuns, value: { runs: demo.runs.list() } },
    { endpoint: clusterEndpoints.listClusters, value: { clusters: await clusterApiOf(runtime).list() } },
  ])
  return (
    <HydrationBoundary state={state}>
      <ControlRoom />
    </HydrationBoundary>
  )
}
