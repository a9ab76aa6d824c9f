'use client'

import { useQueryClient } from '@tanstack/react-query'
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react'
import type { EventType } from '@/lib/api/events'
import { syncCacheWithEvents } from './cache-sync'
import { EventStreamClient, type EventListener, type StreamStatus } from './event-stream-client'

const EventStreamContext = createContext<EventStreamClient | null>(null)

/** Opens the tab's one event stream while someone is signed in; pages without a session get none. */
export function EventStreamProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const queryClient = useQueryClient()
  const [client] = useState(() => new EventStreamClient())
  useEffect(() => {
    if (!enabled) return
    const stopSync = syncCacheWithEvents(queryClient, client)
    client.start()
    return () => {
      client.stop()
      stopSync()
    }
  }, [client, enabled, queryClient])
  return <EventStreamContext.Provider value={enabled ? client : null}>{children}</EventStreamContext.Provider>
}

const serverStatus = (): StreamStatus => 'connecting'
const noop = () => () => {}

/** 'open', 'connecting' or 'disconnected'; 'connecting' when no stream is open (signed out). */
export function useStreamStatus(): StreamStatus {
  const client = useContext(EventStreamContext)
  return useSyncExternalStore(client?.subscribeStatus ?? noop, client?.getStatus ?? serverStatus, serverStatus)
}

const noDisconnect = (): number | null => null

/** When the stream was lost; null while it is open (or no stream is open: signed out). */
export function useStreamDisconnectedAt(): number | null {
  const client = useContext(EventStreamContext)
  return useSyncExternalStore(client?.subscribeStatus ?? noop, client ? () => client.disconnectedAt : noDisconnect, noDisconnect)
}

/** Calls `listener` for every event of `type` while the component is mounted (keep it stable: useCallback). */
export function useEventListener(type: EventType, listener: EventListener): void {
  const client = useContext(EventStreamContext)
  useEffect(() => (client === null ? undefined : client.subscribe(type, listener)), [client, type, listener])
}

/** Whether live updates reach this tab (false when signed out). */
export function useHasEventStream(): boolean {
  return useContext(EventStreamContext) !== null
}
