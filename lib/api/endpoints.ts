// Over 400 lines on purpose: the endpoint catalog is one table (every path, method, schema, status and audit entry), read top to bottom by the route check, the OpenAPI document and the docs.
import { z } from 'zod'
import { AttentionQuery, AttentionResponse } from './attention'
import { AuditList, AuditQuery } from './audit'
import { Cluster, ClusterList, ClusterParams, CreateClusterRequest } from './clusters'
import { OkResponse } from './common'
import type { ApiErrorCode } from './errors'
import {
  DemoSignIn,
  DemoStatus,
  FaultList,
  FaultParams,
  FaultRequest,
  FaultResponse,
  PatchWorkloadRequest,
  RunList,
  RunParams,
  RunResponse,
  ScenarioList,
  ScenarioParams,
  WorkloadList,
  WorkloadParams,
  WorkloadResponse,
} from './demo'
import { EventsQuery } from './events'
import { CommitGroupOffsetsRequest, GroupList, GroupParams } from './groups'
import { HealthResponse } from './health'
import {
  CreateMirrorRequest,
  FailoverAccepted,
  FailoverPlanResponse,
  FailoverRequest,
  LagQuery,
  LagResponse,
  Mirror,
  MirrorList,
  MirrorListQuery,
  MirrorParams,
  MirrorPartitionList,
  MirrorPartitionParams,
  MirrorPartitionsQuery,
  MirrorTopicsRequest,
  MirrorTopicsResponse,
  PartitionHistory,
  PatchMirrorRequest,
  StartTopicsRequest,
  TruncationPlanResponse,
} from './mirrors'
import { OperationReport } from './operation-report'
import { Operation, OperationList, OperationParams, OperationsQuery } from './operations'
import {
  CreateProducerRequest,
  ProduceRequest,
  ProduceResponse,
  ProducerCreated,
  ProducerParams,
  ProducerSendRequest,
  RecordsQuery,
  RecordsResponse,
} from './records'
import { Session, SessionRequest } from './session'
import {
  CreatePartitionsRequest,
  CreateTopicRequest,
  DeleteRecordsRequest,
  DeleteRecordsResponse,
  PartitionList,
  PartitionParams,
  PatchTopicConfigsRequest,
  Topic,
  TopicConfigs,
  TopicList,
  TopicParams,
} from './topics'

/**
 * Longer than one file should be because it is one table: every endpoint's entry side by side is what
 * keeps the contract reviewable in one read (splitting it by group would hide the whole surface).
 *
 * The catalog of HTTP endpoints: method, path, who may call it, what it reads and returns. Route handlers
 * are built from these entries (`server/http/route.ts`), the OpenAPI document is generated from them, and a
 * test checks that every served entry has its route file and every route file its entry, so the contract,
 * the code and the documentation cannot drift apart.
 */

export type AccessRole = 'public' | 'viewer' | 'operator'
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** A 204 response. */
export interface EmptyContent {
  readonly kind: 'empty'
}
/** A non-JSON response (event stream, Prometheus text). */
export interface TextContent {
  readonly kind: 'text'
  readonly contentType: string
}

export const EMPTY: EmptyContent = { kind: 'empty' }

export interface Endpoint {
  readonly operationId: string
  readonly method: HttpMethod
  /** OpenAPI path template, e.g. `/api/v1/clusters/{cluster}`. */
  readonly path: string
  readonly role: AccessRole
  readonly summary: string
  /** Audit action; set on every mutation, which is then logged whatever its outcome. */
  readonly audit?: string
  readonly params?: z.ZodType<Record<string, unknown>, Record<string, string>>
  readonly query?: z.ZodType<Record<string, unknown>, Record<string, string | undefined>>
  readonly body?: z.ZodType
  /** The success status and its content. */
  readonly status: number
  readonly response: z.ZodType | EmptyContent | TextContent
  /** Further success statuses a handler may choose (dry runs vs real runs). */
  readonly otherResponses?: Readonly<Record<number, z.ZodType>>
  /** Error codes beyond those every endpoint of its kind may return (validation, auth, not found). */
  readonly errors?: readonly ApiErrorCode[]
  /** The success response carries the mirror's state version as its `ETag` header. */
  readonly etag?: boolean
  /** Accepts `If-Match` with a mirror state version; 412 PRECONDITION_FAILED when the mirror moved since. */
  readonly ifMatch?: boolean
}

function endpoint<const E extends Endpoint>(definition: E): E {
  return definition
}

const v1 = '/api/v1'

export const systemEndpoints = {
  health: endpoint({
    operationId: 'getHealth',
    method: 'GET',
    path: `${v1}/health`,
    role: 'public',
    summary: 'Liveness and version',
    status: 200,
    response: HealthResponse,
  }),
  openapi: endpoint({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: `${v1}/openapi.json`,
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
    path: `${v1}/events`,
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
    path: `${v1}/audit`,
    role: 'viewer',
    summary: 'Audit log of every mutation, newest first',
    query: AuditQuery,
    status: 200,
    response: AuditList,
  }),
} as const

export const sessionEndpoints = {
  createSession: endpoint({
    operationId: 'createSession',
    method: 'POST',
    path: `${v1}/session`,
    role: 'public',
    summary: 'Exchange a token for an httpOnly session cookie',
    audit: 'session.create',
    body: SessionRequest,
    status: 200,
    response: Session,
    // A token that matches neither role; too many sign-ins or failed ones from one source (Retry-After).
    errors: ['UNAUTHENTICATED', 'TOO_MANY_REQUESTS'],
  }),
  getSession: endpoint({
    operationId: 'getSession',
    method: 'GET',
    path: `${v1}/session`,
    role: 'viewer',
    summary: 'The role of the current credentials',
    status: 200,
    response: Session,
  }),
  deleteSession: endpoint({
    operationId: 'deleteSession',
    method: 'DELETE',
    path: `${v1}/session`,
    role: 'public',
    summary: 'End the session and clear its cookie',
    audit: 'session.delete',
    status: 204,
    response: EMPTY,
  }),
} as const

export const clusterEndpoints = {
  listClusters: endpoint({
    operationId: 'listClusters',
    method: 'GET',
    path: `${v1}/clusters`,
    role: 'viewer',
    summary: 'Clusters the app manages',
    status: 200,
    response: ClusterList,
  }),
  createCluster: endpoint({
    operationId: 'createCluster',
    method: 'POST',
    path: `${v1}/clusters`,
    role: 'operator',
    summary: 'Create an embedded cluster, or add a Kafka cluster (connected before it is saved)',
    audit: 'cluster.create',
    body: CreateClusterRequest,
    status: 201,
    response: Cluster,
    errors: ['CONFLICT', 'CLUSTER_CONNECTION_FAILED'],
  }),
  getCluster: endpoint({
    operationId: 'getCluster',
    method: 'GET',
    path: `${v1}/clusters/{cluster}`,
    role: 'viewer',
    summary: 'One cluster with its brokers',
    params: ClusterParams,
    status: 200,
    response: Cluster,
  }),
  deleteCluster: endpoint({
    operationId: 'deleteCluster',
    method: 'DELETE',
    path: `${v1}/clusters/{cluster}`,
    role: 'operator',
    summary: 'Remove a cluster and its data (refused with CONFLICT while a mirror uses it as source or destination)',
    audit: 'cluster.delete',
    params: ClusterParams,
    status: 204,
    response: EMPTY,
    errors: ['CONFLICT', 'SOURCE_UNAVAILABLE'],
  }),
  listTopics: endpoint({
    operationId: 'listTopics',
    method: 'GET',
    path: `${v1}/clusters/{cluster}/topics`,
    role: 'viewer',
    summary: 'Topics of a cluster',
    params: ClusterParams,
    status: 200,
    response: TopicList,
  }),
  createTopic: endpoint({
    operationId: 'createTopic',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/topics`,
    role: 'operator',
    summary: 'Create a topic',
    audit: 'topic.create',
    params: ClusterParams,
    body: CreateTopicRequest,
    status: 201,
    response: Topic,
    errors: ['CONFLICT', 'SOURCE_UNAVAILABLE'],
  }),
  listPartitions: endpoint({
    operationId: 'listPartitions',
    method: 'GET',
    path: `${v1}/clusters/{cluster}/topics/{topic}/partitions`,
    role: 'viewer',
    summary: 'Partitions of a topic: leader, ISR, leader epoch and offsets',
    params: TopicParams,
    status: 200,
    response: PartitionList,
  }),
  readRecords: endpoint({
    operationId: 'readRecords',
    method: 'GET',
    path: `${v1}/clusters/{cluster}/topics/{topic}/partitions/{partition}/records`,
    role: 'viewer',
    summary: 'Records of a partition, one entry per offset, control records included',
    params: PartitionParams,
    query: RecordsQuery,
    status: 200,
    response: RecordsResponse,
    errors: ['OFFSET_OUT_OF_RANGE', 'LEADER_NOT_AVAILABLE'],
  }),
  produce: endpoint({
    operationId: 'produceRecords',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/topics/{topic}/records`,
    role: 'operator',
    summary: 'Append records (idempotent by default; idempotent: false writes without a producer id)',
    audit: 'records.produce',
    params: TopicParams,
    body: ProduceRequest,
    status: 200,
    response: ProduceResponse,
    errors: ['TOPIC_READ_ONLY', 'RECORD_TOO_LARGE', 'INVALID_RECORD', 'NOT_ENOUGH_REPLICAS', 'LEADER_NOT_AVAILABLE'],
  }),
  createProducer: endpoint({
    operationId: 'createProducer',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/producers`,
    role: 'operator',
    summary: 'Start a transactional producer (fences an older one with the same transactional id)',
    audit: 'producer.create',
    params: ClusterParams,
    body: CreateProducerRequest,
    status: 201,
    response: ProducerCreated,
    errors: ['CONCURRENT_TRANSACTIONS'],
  }),
  producerSend: endpoint({
    operationId: 'producerSend',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/producers/{handle}/send`,
    role: 'operator',
    summary: 'Send records in the open transaction (opening one when none is open)',
    audit: 'producer.send',
    params: ProducerParams,
    body: ProducerSendRequest,
    status: 200,
    response: ProduceResponse,
    errors: ['TOPIC_READ_ONLY', 'INVALID_PRODUCER_EPOCH', 'OUT_OF_ORDER_SEQUENCE', 'INVALID_TXN_STATE', 'RECORD_TOO_LARGE'],
  }),
  producerCommit: endpoint({
    operationId: 'producerCommit',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/producers/{handle}/commit`,
    role: 'operator',
    summary: 'Commit the open transaction',
    audit: 'producer.commit',
    params: ProducerParams,
    status: 200,
    response: OkResponse,
    errors: ['INVALID_PRODUCER_EPOCH', 'INVALID_TXN_STATE'],
  }),
  producerAbort: endpoint({
    operationId: 'producerAbort',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/producers/{handle}/abort`,
    role: 'operator',
    summary: 'Abort the open transaction',
    audit: 'producer.abort',
    params: ProducerParams,
    status: 200,
    response: OkResponse,
    errors: ['INVALID_PRODUCER_EPOCH', 'INVALID_TXN_STATE'],
  }),
  closeProducer: endpoint({
    operationId: 'closeProducer',
    method: 'DELETE',
    path: `${v1}/clusters/{cluster}/producers/{handle}`,
    role: 'operator',
    summary: 'Drop the handle, leaving any open transaction open as a crashed producer would',
    audit: 'producer.close',
    params: ProducerParams,
    status: 204,
    response: EMPTY,
  }),
  listGroups: endpoint({
    operationId: 'listGroups',
    method: 'GET',
    path: `${v1}/clusters/{cluster}/groups`,
    role: 'viewer',
    summary: 'Consumer groups with their committed offsets',
    params: ClusterParams,
    status: 200,
    response: GroupList,
  }),
  commitGroupOffsets: endpoint({
    operationId: 'commitGroupOffsets',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/groups/{group}/offsets`,
    role: 'operator',
    summary: 'Commit offsets for a consumer group',
    audit: 'group.commitOffsets',
    params: GroupParams,
    body: CommitGroupOffsetsRequest,
    status: 200,
    response: OkResponse,
    errors: ['CONFLICT', 'OFFSET_OUT_OF_RANGE'],
  }),
  // Topic administration (Kafka's DeleteTopics, CreatePartitions, DeleteRecords, IncrementalAlterConfigs). On a
  // mirror topic that is not STOPPED the first three are refused with TOPIC_READ_ONLY (KIP-1279.md §11 #8), the
  // code a produce to it gets; configs stay alterable, as in the KIP.
  deleteTopic: endpoint({
    operationId: 'deleteTopic',
    method: 'DELETE',
    path: `${v1}/clusters/{cluster}/topics/{topic}`,
    role: 'operator',
    summary: 'Delete a topic (refused on a mirror topic that is not STOPPED, and on internal topics)',
    audit: 'topic.delete',
    params: TopicParams,
    status: 204,
    response: EMPTY,
    errors: ['TOPIC_READ_ONLY', 'SOURCE_UNAVAILABLE'],
  }),
  createPartitions: endpoint({
    operationId: 'createPartitions',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/topics/{topic}/partitions`,
    role: 'operator',
    summary: "Increase a topic's partition count (refused on a mirror topic that is not STOPPED)",
    audit: 'topic.createPartitions',
    params: TopicParams,
    body: CreatePartitionsRequest,
    status: 200,
    response: Topic,
    errors: ['TOPIC_READ_ONLY', 'SOURCE_UNAVAILABLE'],
  }),
  deleteRecords: endpoint({
    operationId: 'deleteRecords',
    method: 'POST',
    path: `${v1}/clusters/{cluster}/topics/{topic}/partitions/{partition}/delete-records`,
    role: 'operator',
    summary: 'Delete records below an offset: moves the log start offset (refused on a mirror topic that is not STOPPED)',
    audit: 'records.delete',
    params: PartitionParams,
    body: DeleteRecordsRequest,
    status: 200,
    response: DeleteRecordsResponse,
    errors: ['TOPIC_READ_ONLY', 'OFFSET_OUT_OF_RANGE', 'LEADER_NOT_AVAILABLE', 'SOURCE_UNAVAILABLE'],
  }),
  getTopicConfigs: endpoint({
    operationId: 'getTopicConfigs',
    method: 'GET',
    path: `${v1}/clusters/{cluster}/topics/{topic}/configs`,
    role: 'viewer',
    summary: "A topic's dynamic configs",
    params: TopicParams,
    status: 200,
    response: TopicConfigs,
    errors: ['SOURCE_UNAVAILABLE'],
  }),
  patchTopicConfigs: endpoint({
    operationId: 'patchTopicConfigs',
    method: 'PATCH',
    path: `${v1}/clusters/{cluster}/topics/{topic}/configs`,
    role: 'operator',
    summary: "Set and delete a topic's dynamic configs (allowed on mirror topics; remote.storage.enable fails a mirror topic's partitions)",
    audit: 'topic.configs.update',
    params: TopicParams,
    body: PatchTopicConfigsRequest,
    status: 200,
    response: TopicConfigs,
    errors: ['SOURCE_UNAVAILABLE'],
  }),
} as const

/** Mirror and operation endpoints of API.md, served over the mirroring engine (server/api/mirror-api.ts). */
export const mirrorEndpoints = {
  listMirrors: endpoint({
    operationId: 'listMirrors',
    method: 'GET',
    path: `${v1}/mirrors`,
    role: 'viewer',
    summary: 'Mirrors with partition counts per state and their worst lag (filters: name, sourceCluster, state)',
    query: MirrorListQuery,
    status: 200,
    response: MirrorList,
  }),
  createMirror: endpoint({
    operationId: 'createMirror',
    method: 'POST',
    path: `${v1}/mirrors`,
    role: 'operator',
    summary: 'Create a mirror (dryRun: the truncation plan, nothing created)',
    audit: 'mirror.create',
    body: CreateMirrorRequest,
    status: 201,
    response: Mirror,
    otherResponses: { 200: TruncationPlanResponse },
    // NOT_FOUND: a source or destination cluster, or a topic, that does not exist.
    errors: ['NOT_FOUND', 'CONFLICT', 'SOURCE_UNAVAILABLE'],
  }),
  getMirror: endpoint({
    operationId: 'getMirror',
    method: 'GET',
    path: `${v1}/mirrors/{mirror}`,
    role: 'viewer',
    summary: 'One mirror with its config and state version (also its ETag)',
    params: MirrorParams,
    status: 200,
    response: Mirror,
    etag: true,
  }),
  patchMirror: endpoint({
    operationId: 'patchMirror',
    method: 'PATCH',
    path: `${v1}/mirrors/{mirror}`,
    role: 'operator',
    summary: "Change a mirror's config",
    audit: 'mirror.update',
    params: MirrorParams,
    body: PatchMirrorRequest,
    status: 200,
    response: Mirror,
    ifMatch: true,
  }),
  deleteMirror: endpoint({
    operationId: 'deleteMirror',
    method: 'DELETE',
    path: `${v1}/mirrors/{mirror}`,
    role: 'operator',
    summary: 'Delete a mirror whose topics are all STOPPED',
    audit: 'mirror.delete',
    params: MirrorParams,
    status: 204,
    response: EMPTY,
    errors: ['INVALID_MIRROR_STATE'],
    ifMatch: true,
  }),
  startMirrorTopics: endpoint({
    operationId: 'startMirrorTopics',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/topics/start`,
    role: 'operator',
    summary: 'Start mirroring topics (dryRun: the truncation plan)',
    audit: 'mirror.topics.start',
    params: MirrorParams,
    body: StartTopicsRequest,
    status: 200,
    response: z.union([MirrorTopicsResponse, TruncationPlanResponse]),
    errors: ['INVALID_MIRROR_STATE', 'CONFLICT', 'SOURCE_UNAVAILABLE'],
    ifMatch: true,
  }),
  pauseMirrorTopics: endpoint({
    operationId: 'pauseMirrorTopics',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/topics/pause`,
    role: 'operator',
    summary: 'Pause mirroring (all topics when none are named)',
    audit: 'mirror.topics.pause',
    params: MirrorParams,
    body: MirrorTopicsRequest,
    status: 200,
    response: MirrorTopicsResponse,
    errors: ['INVALID_MIRROR_STATE'],
    ifMatch: true,
  }),
  resumeMirrorTopics: endpoint({
    operationId: 'resumeMirrorTopics',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/topics/resume`,
    role: 'operator',
    summary: 'Resume paused topics',
    audit: 'mirror.topics.resume',
    params: MirrorParams,
    body: MirrorTopicsRequest,
    status: 200,
    response: MirrorTopicsResponse,
    errors: ['INVALID_MIRROR_STATE'],
    ifMatch: true,
  }),
  recoverMirrorTopics: endpoint({
    operationId: 'recoverMirrorTopics',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/topics/recover`,
    role: 'operator',
    summary: 'Retry FAILED partitions',
    audit: 'mirror.topics.recover',
    params: MirrorParams,
    body: MirrorTopicsRequest,
    status: 200,
    response: MirrorTopicsResponse,
    errors: ['INVALID_MIRROR_STATE'],
    ifMatch: true,
  }),
  failover: endpoint({
    operationId: 'failover',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/failover`,
    role: 'operator',
    summary: 'Fail over: stop mirroring and make the topics writable (dryRun: the plan only)',
    audit: 'mirror.failover',
    params: MirrorParams,
    body: FailoverRequest,
    status: 202,
    response: FailoverAccepted,
    otherResponses: { 200: FailoverPlanResponse },
    // CONFLICT: a failover of the same partitions is running (its id in details.operation).
    // SOURCE_UNAVAILABLE: a cluster the plan must read (the destination's partitions and offsets) did not answer.
    errors: ['CONFIRMATION_REQUIRED', 'INVALID_MIRROR_STATE', 'CONFLICT', 'SOURCE_UNAVAILABLE'],
    ifMatch: true,
  }),
  listMirrorPartitions: endpoint({
    operationId: 'listMirrorPartitions',
    method: 'GET',
    path: `${v1}/mirrors/{mirror}/partitions`,
    role: 'viewer',
    summary: "Mirror partitions with state and lag, and the mirror's state version (also its ETag)",
    params: MirrorParams,
    query: MirrorPartitionsQuery,
    status: 200,
    response: MirrorPartitionList,
    etag: true,
  }),
  partitionHistory: endpoint({
    operationId: 'getMirrorPartitionHistory',
    method: 'GET',
    path: `${v1}/mirrors/{mirror}/partitions/{topic}/{partition}/history`,
    role: 'viewer',
    summary: "A mirror partition's state transitions",
    params: MirrorPartitionParams,
    status: 200,
    response: PartitionHistory,
  }),
  mirrorLag: endpoint({
    operationId: 'getMirrorLag',
    method: 'GET',
    path: `${v1}/mirrors/{mirror}/lag`,
    role: 'viewer',
    summary: 'Lag history per partition',
    params: MirrorParams,
    query: LagQuery,
    status: 200,
    response: LagResponse,
  }),
  listOperations: endpoint({
    operationId: 'listOperations',
    method: 'GET',
    path: `${v1}/operations`,
    role: 'viewer',
    summary: 'Failover operations, newest first (without their plans)',
    query: OperationsQuery,
    status: 200,
    response: OperationList,
  }),
  getOperation: endpoint({
    operationId: 'getOperation',
    method: 'GET',
    path: `${v1}/operations/{id}`,
    role: 'viewer',
    summary: 'One operation with the STOPPING step of each partition',
    params: OperationParams,
    status: 200,
    response: Operation,
  }),
  operationReport: endpoint({
    operationId: 'getOperationReport',
    method: 'GET',
    path: `${v1}/operations/{id}/report`,
    role: 'viewer',
    summary: 'The report of a failover: the plan confirmed, who confirmed and when, forced gates, and per partition the ABORT markers, PID reset offset, final leader epoch and timings read from the destination log',
    params: OperationParams,
    status: 200,
    response: OperationReport,
  }),
} as const

/**
 * The demo environment (API.md "Demo environment"): served by every build, answering 404 unless the server
 * runs with MIRRORBOARD_DEMO=1 (`npm run demo`).
 */
export const demoEndpoints = {
  getDemo: endpoint({
    operationId: 'getDemo',
    method: 'GET',
    path: `${v1}/demo`,
    role: 'viewer',
    summary: 'Whether the demo runs, and its live clusters and mirror (404 outside demo mode)',
    status: 200,
    response: DemoStatus,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  getDemoSignIn: endpoint({
    operationId: 'getDemoSignIn',
    method: 'GET',
    path: `${v1}/demo/session`,
    role: 'public',
    summary: 'Whether the one-click operator sign-in is offered to this caller: 200 in demo mode from loopback, 404 otherwise',
    status: 200,
    response: DemoSignIn,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  createDemoSession: endpoint({
    operationId: 'createDemoSession',
    method: 'POST',
    path: `${v1}/demo/session`,
    role: 'public',
    summary: 'One-click operator sign-in: sets the session cookie, only in demo mode and only for a request from loopback (404 otherwise)',
    audit: 'demo.session',
    status: 200,
    response: Session,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  listWorkloads: endpoint({
    operationId: 'listDemoWorkloads',
    method: 'GET',
    path: `${v1}/demo/workloads`,
    role: 'operator',
    summary: 'Live producers and consumer groups with their rates',
    status: 200,
    response: WorkloadList,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  updateWorkload: endpoint({
    operationId: 'updateDemoWorkload',
    method: 'PATCH',
    path: `${v1}/demo/workloads/{name}`,
    role: 'operator',
    summary: "Set a workload's rate (records per second)",
    audit: 'demo.workload.update',
    params: WorkloadParams,
    body: PatchWorkloadRequest,
    status: 200,
    response: WorkloadResponse,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  pauseWorkload: endpoint({
    operationId: 'pauseDemoWorkload',
    method: 'POST',
    path: `${v1}/demo/workloads/{name}/pause`,
    role: 'operator',
    summary: 'Pause a workload (answers once its call in flight has ended, or after 2 s)',
    audit: 'demo.workload.pause',
    params: WorkloadParams,
    status: 200,
    response: WorkloadResponse,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  resumeWorkload: endpoint({
    operationId: 'resumeDemoWorkload',
    method: 'POST',
    path: `${v1}/demo/workloads/{name}/resume`,
    role: 'operator',
    summary: 'Resume a paused workload',
    audit: 'demo.workload.resume',
    params: WorkloadParams,
    status: 200,
    response: WorkloadResponse,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  listFaults: endpoint({
    operationId: 'listDemoFaults',
    method: 'GET',
    path: `${v1}/demo/faults`,
    role: 'operator',
    summary: 'Active faults',
    status: 200,
    response: FaultList,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  injectFault: endpoint({
    operationId: 'injectDemoFault',
    method: 'POST',
    path: `${v1}/demo/faults`,
    role: 'operator',
    summary: 'Inject a fault, or heal one with start-broker / heal-link (409 when it does not apply)',
    audit: 'demo.fault.inject',
    body: FaultRequest,
    status: 202,
    response: FaultResponse,
    errors: ['NOT_FOUND', 'CONFLICT', 'SOURCE_UNAVAILABLE', 'LEADER_NOT_AVAILABLE', 'TOPIC_READ_ONLY'],
  }),
  healFault: endpoint({
    operationId: 'healDemoFault',
    method: 'DELETE',
    path: `${v1}/demo/faults/{id}`,
    role: 'operator',
    summary: 'Heal an active fault',
    audit: 'demo.fault.heal',
    params: FaultParams,
    status: 200,
    response: FaultResponse,
    errors: ['NOT_FOUND', 'CONFLICT', 'SOURCE_UNAVAILABLE'],
  }),
  listScenarios: endpoint({
    operationId: 'listDemoScenarios',
    method: 'GET',
    path: `${v1}/demo/scenarios`,
    role: 'operator',
    summary: 'Narrated scenarios with their steps',
    status: 200,
    response: ScenarioList,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  runScenario: endpoint({
    operationId: 'runDemoScenario',
    method: 'POST',
    path: `${v1}/demo/scenarios/{name}/run`,
    role: 'operator',
    summary: 'Start a run of a scenario on clusters of its own (409 while one of it runs)',
    audit: 'demo.scenario.run',
    params: ScenarioParams,
    status: 202,
    response: RunResponse,
    errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  listRuns: endpoint({
    operationId: 'listDemoRuns',
    method: 'GET',
    path: `${v1}/demo/runs`,
    role: 'operator',
    summary: 'Scenario runs, newest first',
    status: 200,
    response: RunList,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
  getRun: endpoint({
    operationId: 'getDemoRun',
    method: 'GET',
    path: `${v1}/demo/runs/{id}`,
    role: 'operator',
    summary: 'One scenario run with the narration of each step',
    params: RunParams,
    status: 200,
    response: RunResponse,
    // Outside demo mode every /demo endpoint answers 404.
    errors: ['NOT_FOUND'],
  }),
} as const

/** What the overview reads beyond the lists: computed on the server so the browser never walks every partition. */
export const overviewEndpoints = {
  attention: endpoint({
    operationId: 'listAttention',
    method: 'GET',
    path: `${v1}/attention`,
    role: 'viewer',
    summary: 'Mirror partitions that need attention (FAILED, lag growing for over a minute, stale fetches, paused), worst first',
    query: AttentionQuery,
    status: 200,
    response: AttentionResponse,
  }),
} as const

/** Every endpoint this build serves (the OpenAPI document lists exactly these). */
export const SERVED_ENDPOINTS: readonly Endpoint[] = [
  ...Object.values(systemEndpoints),
  ...Object.values(sessionEndpoints),
  ...Object.values(clusterEndpoints),
  ...Object.values(mirrorEndpoints),
  ...Object.values(demoEndpoints),
  ...Object.values(overviewEndpoints),
]

export function isMutation(endpoint: Pick<Endpoint, 'method'>): boolean {
  return endpoint.method !== 'GET'
}
