import 'server-only'
import { z } from 'zod'
import * as auditSchemas from '@/lib/api/audit'
import * as clusterSchemas from '@/lib/api/clusters'
import * as commonSchemas from '@/lib/api/common'
import type { Endpoint } from '@/lib/api/endpoints'
import type { ApiErrorCode } from '@/lib/api/errors'
import { ErrorBody } from '@/lib/api/error-body'
import * as eventSchemas from '@/lib/api/events'
import * as groupSchemas from '@/lib/api/groups'
import * as healthSchemas from '@/lib/api/health'
import * as mirrorSchemas from '@/lib/api/mirrors'
import * as operationSchemas from '@/lib/api/operations'
import * as recordSchemas from '@/lib/api/records'
import * as sessionSchemas from '@/lib/api/session'
import * as topicSchemas from '@/lib/api/topics'
import { SESSION_COOKIE } from './auth'
import { STATUS_BY_CODE } from './problem'
import { refusedWithoutControlCluster } from './control-guard'

/**
 * The OpenAPI 3.1 document of the served endpoints, generated from the catalog and its zod schemas. Named
 * request and response schemas become components under their export names; request schemas describe what
 * a client may send (defaults optional), response schemas what it gets.
 */

type JsonObject = Record<string, unknown>

const SCHEMA_MODULES = [
  auditSchemas,
  clusterSchemas,
  commonSchemas,
  eventSchemas,
  groupSchemas,
  healthSchemas,
  mirrorSchemas,
  operationSchemas,
  recordSchemas,
  sessionSchemas,
  topicSchemas,
  { ErrorBody },
]

function schemaNames(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>()
  for (const schemas of SCHEMA_MODULES) {
    for (const [name, value] of Object.entries(schemas)) {
      if (value instanceof z.ZodType && !names.has(value)) names.set(value, name)
    }
  }
  return names
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function withoutMeta(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema
  return rest
}

function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` }
}

function isZod(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonObject[] {
  if (schema === undefined) return []
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject
  const properties = (json.properties ?? {}) as Record<string, JsonObject>
  const required = new Set((json.required ?? []) as string[])
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = withoutMeta(property)
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    }
  })
}

function errorStatuses(endpoint: Endpoint): Map<number, Set<string>> {
  const codes: ApiErrorCode[] = ['INTERNAL']
  if (endpoint.params || endpoint.query || endpoint.body) codes.push('VALIDATION_FAILED')
  if (endpoint.body) codes.push('PAYLOAD_TOO_LARGE')
  // Failed authentication backs off per source (auth-throttle.ts): any credential may meet a 429 then.
  if (endpoint.role !== 'public') codes.push('UNAUTHENTICATED', 'TOO_MANY_REQUESTS')
  if (endpoint.role !== 'public' || endpoint.method !== 'GET') codes.push('FORBIDDEN')
  if (endpoint.params) codes.push('NOT_FOUND')
  // Several instances: a mirror's requests go to the instance that runs it (docs/high-availability.md).
  if (endpoint.path.includes('{mirror}') || /\/(drills|verifications|operations)\/\{id\}/.test(endpoint.path)) codes.push('MIRROR_OWNER_UNAVAILABLE')
  if (refusedWithoutControlCluster(endpoint)) codes.push('CONTROL_CLUSTER_UNAVAILABLE')
  codes.push(...(endpoint.errors ?? []))
  if (endpoint.ifMatch) codes.push('PRECONDITION_FAILED')
  const byStatus = new Map<number, Set<string>>()
  for (const code of codes) {
    const status = STATUS_BY_CODE[code]
    const set = byStatus.get(status) ?? new Set<string>()
    set.add(code)
    byStatus.set(status, set)
  }
  return byStatus
}

/** Optimistic concurrency (KIP-1279's StateOffset): the mirror's state version as an entity tag. */
const IF_MATCH: JsonObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag (state version) of GET /mirrors/{mirror} or its partition list, quoted as sent, or *. When the mirror changed since, the request is refused with 412 PRECONDITION_FAILED and changes nothing. Mutations of one mirror run one at a time.',
  schema: { type: 'string', maxLength: 1000 },
}
const ETAG_HEADER: JsonObject = { description: "The mirror's state version, for If-Match", schema: { type: 'string' } }

const built = new WeakMap<readonly Endpoint[], { version: string; document: JsonObject }>()

/** The document for a catalog, built once per catalog and version (it never changes while the process runs). */
export function openApiDocument(endpoints: readonly Endpoint[], info: { version: string }): JsonObject {
  const cached = built.get(endpoints)
  if (cached?.version === info.version) return cached.document
  const document = buildOpenApiDocument(endpoints, info)
  built.set(endpoints, { version: info.version, document })
  return document
}

export function buildOpenApiDocument(endpoints: readonly Endpoint[], info: { version: string }): JsonObject {
  const names = schemaNames()
  const requests = z.registry<{ id: string }>()
  const responses = z.registry<{ id: string }>()
  const componentOf = new Map<z.ZodType, string>()
  const register = (registry: typeof requests, schema: z.ZodType, fallback: string): string => {
    const existing = componentOf.get(schema)
    if (existing !== undefined) return existing
    const name = names.get(schema) ?? fallback
    registry.add(schema, { id: name })
    componentOf.set(schema, name)
    return name
  }
  register(responses, ErrorBody, 'ErrorBody')

  const paths: Record<string, Record<string, JsonObject>> = {}
  for (const endpoint of endpoints) {
    const operation: JsonObject = {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      'x-required-role': endpoint.role,
      security: endpoint.role === 'public' ? [] : [{ bearerToken: [] }, { sessionCookie: [] }],
      parameters: [...parameters(endpoint.params, 'path'), ...parameters(endpoint.query, 'query'), ...(endpoint.ifMatch ? [IF_MATCH] : [])],
    }
    if (endpoint.audit !== undefined) operation['x-audit-action'] = endpoint.audit
    if (endpoint.body !== undefined) {
      const name = register(requests, endpoint.body, `${capitalize(endpoint.operationId)}Request`)
      operation.requestBody = { required: true, content: { 'application/json': { schema: ref(name) } } }
    }
    const result: Record<string, JsonObject> = {}
    const success = endpoint.response
    if (isZod(success)) {
      const name = register(responses, success, `${capitalize(endpoint.operationId)}Response`)
      result[String(endpoint.status)] = {
        description: 'Success',
        ...(endpoint.etag ? { headers: { ETag: ETAG_HEADER } } : {}),
        content: {
          'application/json': { schema: ref(name) },
          ...(endpoint.alternateContentType ? { [endpoint.alternateContentType]: { schema: { type: 'string' } } } : {}),
        },
      }
    } else if (success.kind === 'empty') {
      result[String(endpoint.status)] = { description: 'No content' }
    } else {
      // A JSON document served as text (this document itself) is still an object to a client that parses it.
      const schema = /[/+]json\b/.test(success.contentType) ? { type: 'object' } : { type: 'string' }
      result[String(endpoint.status)] = { description: 'Success', content: { [success.contentType]: { schema } } }
    }
    for (const [status, schema] of Object.entries(endpoint.otherResponses ?? {})) {
      const name = register(responses, schema, `${capitalize(endpoint.operationId)}Response${status}`)
      result[status] = { description: 'Success (dry run)', content: { 'application/json': { schema: ref(name) } } }
    }
    for (const [status, codes] of errorStatuses(endpoint)) {
      result[String(status)] = {
        description: `Error: ${[...codes].join(', ')}`,
        content: { 'application/json': { schema: ref('ErrorBody') } },
      }
    }
    operation.responses = result
    const path = (paths[endpoint.path] ??= {})
    path[endpoint.method.toLowerCase()] = operation
  }

  const uri = (id: string) => `#/components/schemas/${id}`
  const generated = [
    z.toJSONSchema(requests, { io: 'input', uri, unrepresentable: 'any' }),
    z.toJSONSchema(responses, { io: 'output', uri, unrepresentable: 'any' }),
  ]
  const schemas: Record<string, JsonObject> = {}
  for (const { schemas: group } of generated) {
    for (const [name, schema] of Object.entries(group)) schemas[name] = withoutMeta(schema as JsonObject)
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Mirrorboard API',
      version: info.version,
      description:
        'Kafka cluster mirroring (KIP-1279). Errors are { "error": { "code", "message", "details"? } }. ' +
        'Viewers read, operators change; every change is written to the audit log.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerToken: { type: 'http', scheme: 'bearer', description: 'MIRRORBOARD_OPERATOR_TOKEN or MIRRORBOARD_VIEWER_TOKEN' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'From POST /api/v1/session; named __Host-mirrorboard_session over TLS' },
      },
    },
  }
}
