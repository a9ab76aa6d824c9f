'use client'

import { useParams } from 'next/navigation'
import { useMirror } from '@/components/data/use-mirrors'
import { NotFoundPanel } from '@/components/ui/not-found-panel'

/** What was not found, from the address: the partition of a known mirror links back to it, else to the overview. */
export function PartitionNotFound() {
  const params = useParams<{ mirror?: string; topic?: string; partition?: string }>()
  const mirror = decodeURIComponent(params.mirror ?? '')
  const topic = decodeURIComponent(params.topic ?? '')
  const partition = decodeURIComponent(params.partition ?? '')
  const known = useMirror(mirror)
  if (known.data !== undefined) {
    return (
      <NotFoundPanel
        what={`Mirror ${mirror} has no partition ${topic} / ${partition}`}
        detail={known.data.topics.length === 0 ? 'It mirrors no topics yet.' : `It mirrors ${known.data.topics.join(', ')}.`}
        backHref={`/mirrors/${encodeURIComponent(mirror)}`}
        backLabel={`Back to mirror ${mirror}`}
      />
    )
  }
  return (
    <NotFoundPanel
      what={known.isPending ? `Partition ${topic} / ${partition} of mirror ${mirror} was not found` : `There is no mirror ${mirror}`}
      detail="The address may be mistyped, or the mirror was deleted."
    />
  )
}
