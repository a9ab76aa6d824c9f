'use client'

import { useSyncExternalStore } from 'react'

/**
 * The last result of a topic action, per cluster, for the cluster page's admin bar. A topic's dialog closes
 * when its row goes (a deleted topic), so what it did is announced here, where it outlives the row.
 */
const notices = new Map<string, string>()
const listeners = new Set<() => void>()

export function announceClusterChange(cluster: string, text: string | null): void {
  if (text === null) notices.delete(cluster)
  else notices.set(cluster, text)
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function useClusterNotice(cluster: string): string | null {
  return useSyncExternalStore(
    subscribe,
    () => notices.get(cluster) ?? null,
    () => null,
  )
}
