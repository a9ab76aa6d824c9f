/**
 * The endpoint catalog as the browser holds it: each entry's operationId, method, path, success status and
 * audit action, without its zod schemas. The catalog itself (endpoints.ts) imports every schema module of the
 * API, and evaluating them all cost every page a 300–380 ms task on a throttled phone before it could answer a
 * tap (issue 33). Client components import from here; the server, the OpenAPI document and the command line
 * keep the full catalog. Each entry carries its catalog entry's type, so the answer's type, the params' names
 * and the request body are still the catalog's (ResponseOf, endpoint-query.ts); TypeScript checks every
 * literal here against the catalog and `satisfies` makes a missing entry a type error; routes.test.ts checks
 * the values once more. The browser does not check answers against the schemas: the server's answers are
 * checked against them in CI (MIRRORBOARD_CHECK_RESPONSES) and a caller that needs a check passes `read`.
 */
import type { Endpoint, HttpMethod } from './catalog/endpoint'
import type { systemEndpoints as SystemCatalog } from './catalog/system'
import type { sessionEndpoints as SessionCatalog } from './catalog/session'
import type { clusterEndpoints as ClusterCatalog } from './catalog/clusters'
import type { mirrorEndpoints as MirrorCatalog } from './catalog/mirrors'
import type { demoEndpoints as DemoCatalog } from './catalog/demo'
import type { overviewEndpoints as OverviewCatalog } from './catalog/overview'
import type { alertEndpoints as AlertCatalog } from './catalog/alerts'
import type { verificationEndpoints as VerificationCatalog } from './catalog/rehearsals'
import type { drillEndpoints as DrillCatalog } from './catalog/rehearsals'
import type { tokenEndpoints as TokenCatalog } from './catalog/tokens'

/** A catalog entry without its schemas; `entry` exists only in the type (the catalog entry it stands for). */
export interface Route<E extends Endpoint = Endpoint> {
  readonly operationId: string
  readonly method: HttpMethod
  readonly path: string
  readonly status: number
  readonly audit?: string
  readonly entry?: E
}

/** What the data layer accepts: a route (the browser) or a full catalog entry (the server's prefetch, tests). */
export type RouteOrEndpoint = Route | Endpoint

/** The catalog entry a route stands for (a full entry stands for itself). */
export type EntryOf<R extends RouteOrEndpoint> = R extends Endpoint ? R : R extends Route<infer E> ? E : never

type RoutesOf<G extends Readonly<Record<string, Endpoint>>> = { readonly [K in keyof G]: Route<G[K]> }

function route<E extends Endpoint>(operationId: E['operationId'], method: E['method'], path: E['path'], status: E['status'], audit?: E['audit']): Route<E> {
  return audit === undefined ? { operationId, method, path, status } : { operationId, method, path, status, audit }
}

export const systemEndpoints = {
  health: route<typeof SystemCatalog.health>('getHealth', 'GET', '/api/v1/health', 200),
  instances: route<typeof SystemCatalog.instances>('listInstances', 'GET', '/api/v1/instances', 200),
  openapi: route<typeof SystemCatalog.openapi>('getOpenApiDocument', 'GET', '/api/v1/openapi.json', 200),
  metrics: route<typeof SystemCatalog.metrics>('getMetrics', 'GET', '/api/metrics', 200),
  events: route<typeof SystemCatalog.events>('streamEvents', 'GET', '/api/v1/events', 200),
  audit: route<typeof SystemCatalog.audit>('listAuditEntries', 'GET', '/api/v1/audit', 200),
} as const satisfies RoutesOf<typeof SystemCatalog>

export const sessionEndpoints = {
  createSession: route<typeof SessionCatalog.createSession>('createSession', 'POST', '/api/v1/session', 200, 'session.create'),
  getSession: route<typeof SessionCatalog.getSession>('getSession', 'GET', '/api/v1/session', 200),
  deleteSession: route<typeof SessionCatalog.deleteSession>('deleteSession', 'DELETE', '/api/v1/session', 204, 'session.delete'),
  startOidcSignIn: route<typeof SessionCatalog.startOidcSignIn>('startOidcSignIn', 'GET', '/api/v1/auth/oidc/login', 302),
  finishOidcSignIn: route<typeof SessionCatalog.finishOidcSignIn>('finishOidcSignIn', 'GET', '/api/v1/auth/oidc/callback', 200),
  signOut: route<typeof SessionCatalog.signOut>('signOut', 'POST', '/api/v1/auth/logout', 200, 'session.delete'),
} as const satisfies RoutesOf<typeof SessionCatalog>

export const clusterEndpoints = {
  listClusters: route<typeof ClusterCatalog.listClusters>('listClusters', 'GET', '/api/v1/clusters', 200),
  createCluster: route<typeof ClusterCatalog.createCluster>('createCluster', 'POST', '/api/v1/clusters', 201, 'cluster.create'),
  getCluster: route<typeof ClusterCatalog.getCluster>('getCluster', 'GET', '/api/v1/clusters/{cluster}', 200),
  deleteCluster: route<typeof ClusterCatalog.deleteCluster>('deleteCluster', 'DELETE', '/api/v1/clusters/{cluster}', 204, 'cluster.delete'),
  listTopics: route<typeof ClusterCatalog.listTopics>('listTopics', 'GET', '/api/v1/clusters/{cluster}/topics', 200),
  createTopic: route<typeof ClusterCatalog.createTopic>('createTopic', 'POST', '/api/v1/clusters/{cluster}/topics', 201, 'topic.create'),
  listPartitions: route<typeof ClusterCatalog.listPartitions>('listPartitions', 'GET', '/api/v1/clusters/{cluster}/topics/{topic}/partitions', 200),
  readRecords: route<typeof ClusterCatalog.readRecords>('readRecords', 'GET', '/api/v1/clusters/{cluster}/topics/{topic}/partitions/{partition}/records', 200),
  produce: route<typeof ClusterCatalog.produce>('produceRecords', 'POST', '/api/v1/clusters/{cluster}/topics/{topic}/records', 200, 'records.produce'),
  createProducer: route<typeof ClusterCatalog.createProducer>('createProducer', 'POST', '/api/v1/clusters/{cluster}/producers', 201, 'producer.create'),
  producerSend: route<typeof ClusterCatalog.producerSend>('producerSend', 'POST', '/api/v1/clusters/{cluster}/producers/{handle}/send', 200, 'producer.send'),
  producerCommit: route<typeof ClusterCatalog.producerCommit>('producerCommit', 'POST', '/api/v1/clusters/{cluster}/producers/{handle}/commit', 200, 'producer.commit'),
  producerAbort: route<typeof ClusterCatalog.producerAbort>('producerAbort', 'POST', '/api/v1/clusters/{cluster}/producers/{handle}/abort', 200, 'producer.abort'),
  closeProducer: route<typeof ClusterCatalog.closeProducer>('closeProducer', 'DELETE', '/api/v1/clusters/{cluster}/producers/{handle}', 204, 'producer.close'),
  listGroups: route<typeof ClusterCatalog.listGroups>('listGroups', 'GET', '/api/v1/clusters/{cluster}/groups', 200),
  commitGroupOffsets: route<typeof ClusterCatalog.commitGroupOffsets>('commitGroupOffsets', 'POST', '/api/v1/clusters/{cluster}/groups/{group}/offsets', 200, 'group.commitOffsets'),
  deleteTopic: route<typeof ClusterCatalog.deleteTopic>('deleteTopic', 'DELETE', '/api/v1/clusters/{cluster}/topics/{topic}', 204, 'topic.delete'),
  createPartitions: route<typeof ClusterCatalog.createPartitions>('createPartitions', 'POST', '/api/v1/clusters/{cluster}/topics/{topic}/partitions', 200, 'topic.createPartitions'),
  deleteRecords: route<typeof ClusterCatalog.deleteRecords>('deleteRecords', 'POST', '/api/v1/clusters/{cluster}/topics/{topic}/partitions/{partition}/delete-records', 200, 'records.delete'),
  getTopicConfigs: route<typeof ClusterCatalog.getTopicConfigs>('getTopicConfigs', 'GET', '/api/v1/clusters/{cluster}/topics/{topic}/configs', 200),
  patchTopicConfigs: route<typeof ClusterCatalog.patchTopicConfigs>('patchTopicConfigs', 'PATCH', '/api/v1/clusters/{cluster}/topics/{topic}/configs', 200, 'topic.configs.update'),
} as const satisfies RoutesOf<typeof ClusterCatalog>

export const mirrorEndpoints = {
  listMirrors: route<typeof MirrorCatalog.listMirrors>('listMirrors', 'GET', '/api/v1/mirrors', 200),
  createMirror: route<typeof MirrorCatalog.createMirror>('createMirror', 'POST', '/api/v1/mirrors', 201, 'mirror.create'),
  getMirror: route<typeof MirrorCatalog.getMirror>('getMirror', 'GET', '/api/v1/mirrors/{mirror}', 200),
  patchMirror: route<typeof MirrorCatalog.patchMirror>('patchMirror', 'PATCH', '/api/v1/mirrors/{mirror}', 200, 'mirror.update'),
  deleteMirror: route<typeof MirrorCatalog.deleteMirror>('deleteMirror', 'DELETE', '/api/v1/mirrors/{mirror}', 204, 'mirror.delete'),
  startMirrorTopics: route<typeof MirrorCatalog.startMirrorTopics>('startMirrorTopics', 'POST', '/api/v1/mirrors/{mirror}/topics/start', 200, 'mirror.topics.start'),
  pauseMirrorTopics: route<typeof MirrorCatalog.pauseMirrorTopics>('pauseMirrorTopics', 'POST', '/api/v1/mirrors/{mirror}/topics/pause', 200, 'mirror.topics.pause'),
  resumeMirrorTopics: route<typeof MirrorCatalog.resumeMirrorTopics>('resumeMirrorTopics', 'POST', '/api/v1/mirrors/{mirror}/topics/resume', 200, 'mirror.topics.resume'),
  recoverMirrorTopics: route<typeof MirrorCatalog.recoverMirrorTopics>('recoverMirrorTopics', 'POST', '/api/v1/mirrors/{mirror}/topics/recover', 200, 'mirror.topics.recover'),
  failover: route<typeof MirrorCatalog.failover>('failover', 'POST', '/api/v1/mirrors/{mirror}/failover', 202, 'mirror.failover'),
  unfenceMirror: route<typeof MirrorCatalog.unfenceMirror>('unfenceMirror', 'POST', '/api/v1/mirrors/{mirror}/unfence', 200, 'mirror.unfence'),
  mirrorObjectives: route<typeof MirrorCatalog.mirrorObjectives>('mirrorObjectives', 'GET', '/api/v1/mirrors/{mirror}/objectives', 200),
  listMirrorFences: route<typeof MirrorCatalog.listMirrorFences>('listMirrorFences', 'GET', '/api/v1/mirrors/{mirror}/fences', 200),
  listMirrorPartitions: route<typeof MirrorCatalog.listMirrorPartitions>('listMirrorPartitions', 'GET', '/api/v1/mirrors/{mirror}/partitions', 200),
  describeMirror: route<typeof MirrorCatalog.describeMirror>('describeMirror', 'GET', '/api/v1/mirrors/{mirror}/describe', 200),
  mirrorTimeline: route<typeof MirrorCatalog.mirrorTimeline>('getMirrorTimeline', 'GET', '/api/v1/mirrors/{mirror}/timeline', 200),
  partitionHistory: route<typeof MirrorCatalog.partitionHistory>('getMirrorPartitionHistory', 'GET', '/api/v1/mirrors/{mirror}/partitions/{topic}/{partition}/history', 200),
  partitionSnapshot: route<typeof MirrorCatalog.partitionSnapshot>('getMirrorPartitionSnapshot', 'GET', '/api/v1/mirrors/{mirror}/partitions/{topic}/{partition}/snapshot', 200),
  mirrorLag: route<typeof MirrorCatalog.mirrorLag>('getMirrorLag', 'GET', '/api/v1/mirrors/{mirror}/lag', 200),
  listOperations: route<typeof MirrorCatalog.listOperations>('listOperations', 'GET', '/api/v1/operations', 200),
  getOperation: route<typeof MirrorCatalog.getOperation>('getOperation', 'GET', '/api/v1/operations/{id}', 200),
  cancelOperation: route<typeof MirrorCatalog.cancelOperation>('cancelOperation', 'POST', '/api/v1/operations/{id}/cancel', 200, 'operation.cancel'),
  operationReport: route<typeof MirrorCatalog.operationReport>('getOperationReport', 'GET', '/api/v1/operations/{id}/report', 200),
} as const satisfies RoutesOf<typeof MirrorCatalog>

export const demoEndpoints = {
  getDemo: route<typeof DemoCatalog.getDemo>('getDemo', 'GET', '/api/v1/demo', 200),
  getDemoSignIn: route<typeof DemoCatalog.getDemoSignIn>('getDemoSignIn', 'GET', '/api/v1/demo/session', 200),
  createDemoSession: route<typeof DemoCatalog.createDemoSession>('createDemoSession', 'POST', '/api/v1/demo/session', 200, 'demo.session'),
  listWorkloads: route<typeof DemoCatalog.listWorkloads>('listDemoWorkloads', 'GET', '/api/v1/demo/workloads', 200),
  updateWorkload: route<typeof DemoCatalog.updateWorkload>('updateDemoWorkload', 'PATCH', '/api/v1/demo/workloads/{name}', 200, 'demo.workload.update'),
  pauseWorkload: route<typeof DemoCatalog.pauseWorkload>('pauseDemoWorkload', 'POST', '/api/v1/demo/workloads/{name}/pause', 200, 'demo.workload.pause'),
  resumeWorkload: route<typeof DemoCatalog.resumeWorkload>('resumeDemoWorkload', 'POST', '/api/v1/demo/workloads/{name}/resume', 200, 'demo.workload.resume'),
  listFaults: route<typeof DemoCatalog.listFaults>('listDemoFaults', 'GET', '/api/v1/demo/faults', 200),
  injectFault: route<typeof DemoCatalog.injectFault>('injectDemoFault', 'POST', '/api/v1/demo/faults', 202, 'demo.fault.inject'),
  healFault: route<typeof DemoCatalog.healFault>('healDemoFault', 'DELETE', '/api/v1/demo/faults/{id}', 200, 'demo.fault.heal'),
  listScenarios: route<typeof DemoCatalog.listScenarios>('listDemoScenarios', 'GET', '/api/v1/demo/scenarios', 200),
  runScenario: route<typeof DemoCatalog.runScenario>('runDemoScenario', 'POST', '/api/v1/demo/scenarios/{name}/run', 202, 'demo.scenario.run'),
  listRuns: route<typeof DemoCatalog.listRuns>('listDemoRuns', 'GET', '/api/v1/demo/runs', 200),
  getRun: route<typeof DemoCatalog.getRun>('getDemoRun', 'GET', '/api/v1/demo/runs/{id}', 200),
} as const satisfies RoutesOf<typeof DemoCatalog>

export const overviewEndpoints = {
  attention: route<typeof OverviewCatalog.attention>('listAttention', 'GET', '/api/v1/attention', 200),
} as const satisfies RoutesOf<typeof OverviewCatalog>

export const alertEndpoints = {
  listAlerts: route<typeof AlertCatalog.listAlerts>('listAlerts', 'GET', '/api/v1/alerts', 200),
  listReceivers: route<typeof AlertCatalog.listReceivers>('listAlertReceivers', 'GET', '/api/v1/alerts/receivers', 200),
  createReceiver: route<typeof AlertCatalog.createReceiver>('createAlertReceiver', 'POST', '/api/v1/alerts/receivers', 201, 'alert.receiver.create'),
  deleteReceiver: route<typeof AlertCatalog.deleteReceiver>('deleteAlertReceiver', 'DELETE', '/api/v1/alerts/receivers/{name}', 204, 'alert.receiver.delete'),
  testReceiver: route<typeof AlertCatalog.testReceiver>('testAlertReceiver', 'POST', '/api/v1/alerts/receivers/{name}/test', 200, 'alert.receiver.test'),
  listSilences: route<typeof AlertCatalog.listSilences>('listAlertSilences', 'GET', '/api/v1/alerts/silences', 200),
  createSilence: route<typeof AlertCatalog.createSilence>('createAlertSilence', 'POST', '/api/v1/alerts/silences', 201, 'alert.silence.create'),
  deleteSilence: route<typeof AlertCatalog.deleteSilence>('deleteAlertSilence', 'DELETE', '/api/v1/alerts/silences/{id}', 204, 'alert.silence.delete'),
} as const satisfies RoutesOf<typeof AlertCatalog>

export const verificationEndpoints = {
  verifyMirror: route<typeof VerificationCatalog.verifyMirror>('verifyMirror', 'POST', '/api/v1/mirrors/{mirror}/verify', 202, 'mirror.verify'),
  listMirrorVerifications: route<typeof VerificationCatalog.listMirrorVerifications>('listMirrorVerifications', 'GET', '/api/v1/mirrors/{mirror}/verifications', 200),
  getVerification: route<typeof VerificationCatalog.getVerification>('getVerification', 'GET', '/api/v1/verifications/{id}', 200),
  cancelVerification: route<typeof VerificationCatalog.cancelVerification>('cancelVerification', 'POST', '/api/v1/verifications/{id}/cancel', 200, 'verification.cancel'),
} as const satisfies RoutesOf<typeof VerificationCatalog>

export const drillEndpoints = {
  startDrill: route<typeof DrillCatalog.startDrill>('startDrill', 'POST', '/api/v1/mirrors/{mirror}/drills', 202, 'mirror.drill'),
  listMirrorDrills: route<typeof DrillCatalog.listMirrorDrills>('listMirrorDrills', 'GET', '/api/v1/mirrors/{mirror}/drills', 200),
  getDrill: route<typeof DrillCatalog.getDrill>('getDrill', 'GET', '/api/v1/drills/{id}', 200),
  drillReport: route<typeof DrillCatalog.drillReport>('getDrillReport', 'GET', '/api/v1/drills/{id}/report', 200),
  cancelDrill: route<typeof DrillCatalog.cancelDrill>('cancelDrill', 'POST', '/api/v1/drills/{id}/cancel', 200, 'drill.cancel'),
} as const satisfies RoutesOf<typeof DrillCatalog>

export const tokenEndpoints = {
  listApiTokens: route<typeof TokenCatalog.listApiTokens>('listApiTokens', 'GET', '/api/v1/tokens', 200),
  createApiToken: route<typeof TokenCatalog.createApiToken>('createApiToken', 'POST', '/api/v1/tokens', 201, 'token.create'),
  revokeApiToken: route<typeof TokenCatalog.revokeApiToken>('revokeApiToken', 'DELETE', '/api/v1/tokens/{name}', 204, 'token.revoke'),
} as const satisfies RoutesOf<typeof TokenCatalog>

/** The audit actions of every mutation, sorted (the audit log's filter offers them). */
export const AUDITED_ACTIONS: readonly string[] = [
  ...new Set(
    [systemEndpoints, sessionEndpoints, clusterEndpoints, mirrorEndpoints, demoEndpoints, overviewEndpoints, alertEndpoints, verificationEndpoints, drillEndpoints, tokenEndpoints]
      .flatMap((group): readonly Route[] => Object.values(group))
      .flatMap((entry) => (entry.audit === undefined ? [] : [entry.audit])),
  ),
].sort()
