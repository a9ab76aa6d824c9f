import { Breadcrumbs } from '@/components/ui/breadcrumbs'
import { InstanceList } from './instance-list'

/** /instances (issue #40): the Mirrorboard instances sharing the mirroring work and the mirrors each runs. */
export function InstancesPage() {
  return (
    <div className="space-y-6">
      <div>
        <Breadcrumbs trail={[{ label: 'Overview', href: '/' }, { label: 'Instances' }]} />
        <h1 className="mt-2 text-2xl font-semibold tracking-tight">Instances</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">Who runs which mirror: each Mirrorboard instance, whether it is alive, its version and its last heartbeat.</p>
      </div>
      <InstanceList />
    </div>
  )
}
