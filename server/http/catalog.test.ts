import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { mirrorEndpoints, SERVED_ENDPOINTS, type Endpoint } from '@/lib/api/endpoints'
import { buildOpenApiDocument } from './openapi'

const root = path.resolve(__dirname, '../..')

function routeFileOf(endpoint: Endpoint): string {
  return path.join(root, 'app', endpoint.path.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts')
}

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return routeFiles(full)
    return entry.name === 'route.ts' ? [full] : []
  })
}

function exportedMethods(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^export (?:const|async function) (GET|POST|PATCH|PUT|DELETE)\b/gm)].map((match) => match[1] ?? '')
}

describe('the endpoint catalog', () => {
  it('has a route file exporting the method of every served endpoint', () => {
    for (const endpoint of SERVED_ENDPOINTS) {
      expect(exportedMethods(routeFileOf(endpoint)), `${endpoint.method} ${endpoint.path}`).toContain(endpoint.method)
    }
  })

  it('lists every method of every route file under app/api', () => {
    const served = new Set(SERVED_ENDPOINTS.map((endpoint) => `${endpoint.method} ${routeFileOf(endpoint)}`))
    for (const file of routeFiles(path.join(root, 'app', 'api'))) {
      for (const method of exportedMethods(file)) expect(served, `${method} ${path.relative(root, file)}`).toContain(`${method} ${file}`)
    }
  })

  it('names an audit action on every mutation and on nothing else', () => {
    for (const endpoint of new Set<Endpoint>([...SERVED_ENDPOINTS, ...Object.values(mirrorEndpoints)])) {
      expect(endpoint.audit !== undefined, `${endpoint.method} ${endpoint.path}`).toBe(endpoint.method !== 'GET')
    }
  })

  it('has unique operation ids and method+path pairs', () => {
    const all: Endpoint[] = [...new Set<Endpoint>([...SERVED_ENDPOINTS, ...Object.values(mirrorEndpoints)])]
    expect(new Set(all.map((endpoint) => endpoint.operationId)).size).toBe(all.length)
    expect(new Set(all.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).size).toBe(all.length)
  })

  it('marks every dynamic route force-dynamic', () => {
    for (const file of routeFiles(path.join(root, 'app', 'api'))) {
      expect(readFileSync(file, 'utf8'), path.relative(root, file)).toMatch(/^export const dynamic = 'force-dynamic'$/m)
    }
  })
})

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument(SERVED_ENDPOINTS, { version: '1.2.3' }) as {
    openapi: string
    info: { version: string }
    paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string; required: boolean }>; requestBody?: unknown; responses: Record<string, unknown>; security: unknown[] }>>
    components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> }
  }

  it('lists every served path and method', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.info.version).toBe('1.2.3')
    for (const endpoint of SERVED_ENDPOINTS) expect(document.paths[endpoint.path]?.[endpoint.method.toLowerCase()]).toBeDefined()
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods))
    expect(operations).toHaveLength(SERVED_ENDPOINTS.length)
  })

  it('describes path and query parameters, bodies, responses and errors', () => {
    const records = document.paths['/api/v1/clusters/{cluster}/topics/{topic}/partitions/{partition}/records']?.get
    expect(records?.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      'path:cluster:true',
      'path:topic:true',
      'path:partition:true',
      'query:fromOffset:false',
      'query:limit:false',
      'query:isolation:false',
    ])
    expect(Object.keys(records?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '404', '416', '429', '500', '503'])

    const createTopic = document.paths['/api/v1/clusters/{cluster}/topics']?.post
    expect(createTopic?.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateTopicRequest' } } } })
    expect(createTopic?.responses['201']).toEqual({ description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/Topic' } } } })
    expect(Object.keys(createTopic?.responses ?? {})).toEqual(expect.arrayContaining(['400', '401', '403', '404', '409', '413', '500']))

    expect(document.paths['/api/v1/health']?.get?.security).toEqual([])
  })

  it('marks the SASL password and the TLS private key writeOnly (issue #41 item 6)', () => {
    const properties: Array<Record<string, { writeOnly?: boolean }>> = []
    const walk = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return
      const record = value as Record<string, unknown>
      if (typeof record.properties === 'object' && record.properties !== null) properties.push(record.properties as Record<string, { writeOnly?: boolean }>)
      Object.values(record).forEach(walk)
    }
    walk(document.components.schemas)
    const sasl = properties.filter((props) => 'password' in props)
    const tls = properties.filter((props) => 'key' in props && 'cert' in props)
    expect(sasl.length).toBeGreaterThan(0)
    expect(tls.length).toBeGreaterThan(0)
    for (const props of sasl) expect(props.password?.writeOnly).toBe(true)
    for (const props of tls) expect(props.key?.writeOnly).toBe(true)
  })


  it('documents the Markdown form of the reports beside their JSON (the fuzzer checks the served Content-Type)', () => {
    for (const path of ['/api/v1/drills/{id}/report', '/api/v1/operations/{id}/report']) {
      const success = document.paths[path]?.get?.responses['200'] as { content: Record<string, unknown> }
      expect(Object.keys(success.content)).toEqual(['application/json', 'text/markdown; charset=utf-8'])
    }
  })

  it('describes text responses by what a client parses: the JSON document as an object, streams as text', () => {
    expect(document.paths['/api/v1/openapi.json']?.get?.responses['200']).toEqual({
      description: 'Success',
      content: { 'application/json': { schema: { type: 'object' } } },
    })
    expect(document.paths['/api/v1/events']?.get?.responses['200']).toEqual({
      description: 'Success',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    })
  })

  it('documents If-Match and 412 on mirror mutations, and the ETag of the mirror and its partition list', () => {
    // A verification and a drill read the mirror and change nothing of it (a drill works on a copy): no If-Match.
    const changesNothingOfTheMirror = new Set(['verifyMirror', 'startDrill'])
    const mutations = SERVED_ENDPOINTS.filter((endpoint) => endpoint.path.startsWith('/api/v1/mirrors/{mirror}') && endpoint.method !== 'GET' && !changesNothingOfTheMirror.has(endpoint.operationId))
    expect(mutations.map((endpoint) => endpoint.operationId).sort()).toEqual(
      ['deleteMirror', 'failover', 'patchMirror', 'pauseMirrorTopics', 'recoverMirrorTopics', 'resumeMirrorTopics', 'startMirrorTopics', 'unfenceMirror'].sort(),
    )
    for (const endpoint of mutations) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()]
      expect(operation?.parameters, endpoint.operationId).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header', required: false }))
      expect(operation?.responses['412'], endpoint.operationId).toBeDefined()
    }
    for (const path of ['/api/v1/mirrors/{mirror}', '/api/v1/mirrors/{mirror}/partitions']) {
      expect((document.paths[path]?.get?.responses['200'] as { headers?: Record<string, unknown> }).headers, path).toHaveProperty('ETag')
    }
    expect(document.paths['/api/v1/clusters/{cluster}/topics']?.get?.responses['412']).toBeUndefined()
  })

  it('turns the zod schemas into components, with defaults optional in requests', () => {
    const schemas = document.components.schemas
    expect(schemas.CreateTopicRequest?.required).toEqual(['name', 'partitions'])
    expect(schemas.ErrorBody).toBeDefined()
    expect(schemas.TopicList?.properties?.topics).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Topic' } })
    expect(JSON.stringify(document)).not.toContain('"$schema"')
  })
})
