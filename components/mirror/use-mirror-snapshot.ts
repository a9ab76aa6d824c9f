'use client'

import { startTransition, useEffect, useMemo, useState } from 'react'
import type { MirrorPartitionStore } from '@/components/data/mirror-partition-store'
import { useNow } from '@/components/ui/relative-time'
import { mirrorSnapshot, type MirrorSnapshot } from '@/lib/ui/mirror-snapshot'

/**
 * The mirror page's one snapshot (lib/ui/mirror-snapshot.ts): read again when the live store changes and once a
 * second (lower bounds of time grow with the clock), both as transitions, so the header, the chart's trend and the banner all show
 * the figures of the same moment. Null until the store holds the whole list (the header shows the summary's
 * figures meanwhile) or before the browser's clock is known.
 */
export function useMirrorSnapshot(store: MirrorPartitionStore): MirrorSnapshot | null {
  // Followed as a transition, as the clock is (useNow): a change re-renders the figures in slices React yields between.
  const [version, setVersion] = useState(store.getVersion)
  useEffect(() => {
    const follow = () => startTransition(() => setVersion(store.getVersion()))
    const stop = store.subscribe(follow)
    follow()
    return stop
  }, [store])
  const now = useNow()
  return useMemo(
    () => (!store.isLoaded || now === 0 ? null : mirrorSnapshot(store.mirror, store.values(), now)),
    // The store mutates in place: its version says when its rows changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [store, version, now],
  )
}
