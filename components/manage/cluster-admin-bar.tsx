'use client'

import Link from 'next/link'
import { useState } from 'react'
import { buttonClass } from '@/components/ui/button-class'
import { useClusterNotice, announceClusterChange } from './cluster-notices'
import { CreateTopicDialog } from './create-topic-dialog'
import { Done } from './form-controls'

/** The cluster page's operator controls above its panels: create a topic, create a mirror from here, and the last result. */
export function ClusterAdminBar({ cluster, brokers }: { cluster: string; brokers: number }) {
  const [creating, setCreating] = useState(false)
  const notice = useClusterNotice(cluster)
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Cluster actions" className="flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonClass('secondary', 'sm')}
          onClick={() => {
            announceClusterChange(cluster, null)
            setCreating(true)
          }}
        >
          <span aria-hidden>+</span> Create topic…
        </button>
        <Link prefetch={false} href={`/create/mirror?source=${encodeURIComponent(cluster)}`} className={buttonClass('secondary', 'sm')}>
          <span aria-hidden>⇄</span> Mirror from this cluster…
        </Link>
      </div>
      {notice !== null && <Done>{notice}</Done>}
      {creating && (
        <CreateTopicDialog
          cluster={cluster}
          brokers={brokers}
          onClose={() => setCreating(false)}
          onDone={(text) => {
            setCreating(false)
            announceClusterChange(cluster, text)
          }}
        />
      )}
    </div>
  )
}
