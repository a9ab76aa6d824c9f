'use client'

import { useParams } from 'next/navigation'
import { NotFoundPanel } from '@/components/ui/not-found-panel'

/** The 404 of /mirrors/{mirror}: names the mirror that was asked for (Next gives not-found pages no params). */
export function MirrorNotFound() {
  const params = useParams<{ mirror?: string }>()
  const name = typeof params.mirror === 'string' ? decodeURIComponent(params.mirror) : null
  return (
    <>
      <title>{name === null ? 'Mirror not found · Mirrorboard' : `No mirror ${name} · Mirrorboard`}</title>
      <NotFoundPanel
        what={name === null ? 'No such mirror' : `No mirror named “${name}”`}
        detail="It may have been deleted, or the address is mistyped. The overview lists every mirror."
      />
    </>
  )
}
