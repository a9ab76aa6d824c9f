import Link from 'next/link'
import { buttonClass } from '@/components/ui/button-class'

/** The overview's entry points for operators: add a cluster; create a mirror once there are two clusters. */
export function ManageLinks({ clusterCount }: { clusterCount: number }) {
  return (
    <div role="group" aria-label="Set up" className="flex flex-wrap gap-2">
      <Link prefetch={false} href="/clusters#add-cluster" className={buttonClass('secondary', 'sm')}>
        <span aria-hidden>+</span> Add a cluster
      </Link>
      {clusterCount >= 2 && (
        <Link prefetch={false} href="/create/mirror" className={buttonClass('secondary', 'sm')}>
          <span aria-hidden>⇄</span> Create a mirror…
        </Link>
      )}
    </div>
  )
}
