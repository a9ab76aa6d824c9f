/**
 * The catalog of HTTP endpoints: every endpoint of API.md with its method, path, role, schemas, statuses and
 * audit action, one file per group under catalog/ and gathered here. Route handlers are built from these
 * entries (`server/http/route.ts`), the OpenAPI document is generated from them, and a test checks that every
 * served entry has its route file and every route file its entry, so the contract, the code and the
 * documentation cannot drift apart. Import from here: the groups' files are where entries are written.
 */
import type { Endpoint } from './catalog/endpoint'
import { alertEndpoints } from './catalog/alerts'
import { clusterEndpoints } from './catalog/clusters'
import { demoEndpoints } from './catalog/demo'
import { mirrorEndpoints } from './catalog/mirrors'
import { overviewEndpoints } from './catalog/overview'
import { drillEndpoints, verificationEndpoints } from './catalog/rehearsals'
import { sessionEndpoints } from './catalog/session'
import { systemEndpoints } from './catalog/system'
import { tokenEndpoints } from './catalog/tokens'

export { EMPTY, isMutation, type AccessRole, type EmptyContent, type Endpoint, type HttpMethod, type TextContent } from './catalog/endpoint'
export { alertEndpoints, clusterEndpoints, demoEndpoints, mirrorEndpoints, overviewEndpoints, sessionEndpoints, systemEndpoints, tokenEndpoints, verificationEndpoints, drillEndpoints }

/** Every endpoint this build serves (the OpenAPI document lists exactly these). */
export const SERVED_ENDPOINTS: readonly Endpoint[] = [
  ...Object.values(systemEndpoints),
  ...Object.values(sessionEndpoints),
  ...Object.values(clusterEndpoints),
  ...Object.values(mirrorEndpoints),
  ...Object.values(demoEndpoints),
  ...Object.values(overviewEndpoints),
  ...Object.values(alertEndpoints),
  ...Object.values(verificationEndpoints),
  ...Object.values(drillEndpoints),
  ...Object.values(tokenEndpoints),
]
