import { AuditList, AuditQuery } from '../audit'
import { EventsQuery } from '../events'
import { HealthResponse } from '../health'
import { InstanceList } from '../instances'
import { endpoint, V1 } from './endpoint'

export const systemEndpoints = {
  health: endpoint({
    operationId: 'getHealth',
    method: 'GET',
    path: `${V1}/health`,
    role: 'public',
    summary: 'Liveness and version',
    status: 200,
    response: HealthResponse,
  }),
  instances: endpoint({
    operationId: 'listInstances',
    method: 'GET',
    path: `${V1}/instances`,
    role: 'viewer',
    summary: 'The instances sharing the mirroring work: alive, the mirrors each runs, version, last heartbeat',
    status: 200,
    response: InstanceList,
  }),
  openapi: endpoint({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: `${V1}/openapi.json`,
    role: 'public',
    summary: 'This API as an OpenAPI 3.1 document',
    status: 200,
    response: { kind: 'text', contentType: 'application/json' },
  }),
  metrics: endpoint({
    operationId: 'getMetrics',
    method: 'GET',
    path: '/api/metrics',
    role: 'viewer',
    summary: 'Prometheus metrics (public when MIRRORBOARD_METRICS_PUBLIC=1)',
    status: 200,
    response: { kind: 'text', contentType: 'text/plain; version=0.0.4; charset=utf-8' },
  }),
  events: endpoint({
    operationId: 'streamEvents',
    method: 'GET',
    path: `${V1}/events`,
    role: 'viewer',
    summary: 'Server-sent events: partition, lag, operation, cluster, audit (resume with Last-Event-ID)',
    query: EventsQuery,
    status: 200,
    response: { kind: 'text', contentType: 'text/event-stream' },
    // Open streams are capped per principal (429) and in total (503).
    errors: ['TOO_MANY_REQUESTS', 'SERVER_BUSY'],
  }),
  audit: endpoint({
    operationId: 'listAuditEntries',
    method: 'GET',
    path: `${V1}/audit`,
    role: 'viewer',
    summary: 'Audit log of every mutation, newest first',
    query: AuditQuery,
    status: 200,
    response: AuditList,
  }),
} as const
