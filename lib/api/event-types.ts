/**
 * Server-sent event names (API.md "Live updates"), apart from their schemas (events.ts) so the browser's
 * event stream can name them without evaluating the schemas of every event's data.
 */
export const EVENT_TYPES = ['partition', 'lag', 'operation', 'cluster', 'audit', 'demo', 'alert', 'verification', 'drill', 'resync'] as const
export type EventType = (typeof EVENT_TYPES)[number]
