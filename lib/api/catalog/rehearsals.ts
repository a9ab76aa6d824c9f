import { Drill, DrillAccepted, DrillList, DrillParams, StartDrillRequest } from '../drills'
import { MirrorParams } from '../mirrors'
import { ReportQuery } from '../operation-report'
import { Verification, VerificationAccepted, VerificationList, VerificationParams, VerifyRequest } from '../verifications'
import { endpoint, V1 } from './endpoint'

/**
 * What proves a failover works before and after it is needed (API.md §"Round 3" "Drills, verification,
 * reports"), gathered by lib/api/endpoints.ts: drills of a mirror, and verifications.
 */

export const drillEndpoints = {
  startDrill: endpoint({
    operationId: 'startDrill',
    method: 'POST',
    path: `${V1}/mirrors/{mirror}/drills`,
    role: 'operator',
    summary: "Rehearse the failover of the mirror's topics on a copy of its destination taken at the mirrored point, while the mirror keeps mirroring: the real STOPPING sequence on the copy, then checks, RTO, RPO and the production lag; the copy is removed at the end",
    audit: 'mirror.drill',
    params: MirrorParams,
    body: StartDrillRequest,
    status: 202,
    response: DrillAccepted,
    // NOT_FOUND: the mirror or a topic; INVALID_MIRROR_STATE: no partition of them MIRRORING; CONFLICT: a drill of
    // the mirror runs, or a failover holds these topics.
    errors: ['NOT_FOUND', 'INVALID_MIRROR_STATE', 'CONFLICT'],
  }),
  listMirrorDrills: endpoint({
    operationId: 'listMirrorDrills',
    method: 'GET',
    path: `${V1}/mirrors/{mirror}/drills`,
    role: 'viewer',
    summary: "A mirror's drills, newest first, with when one last succeeded and whether the drillIntervalDays objective is overdue",
    params: MirrorParams,
    status: 200,
    response: DrillList,
  }),
  getDrill: endpoint({
    operationId: 'getDrill',
    method: 'GET',
    path: `${V1}/drills/{id}`,
    role: 'viewer',
    summary: "One drill: its phase, checks, measured RTO and RPO, the production mirror's lag meanwhile, and the markers its failover wrote per partition",
    params: DrillParams,
    status: 200,
    response: Drill,
  }),
  drillReport: endpoint({
    operationId: 'getDrillReport',
    method: 'GET',
    path: `${V1}/drills/{id}/report`,
    role: 'viewer',
    summary: 'A drill as a downloadable report: the drill itself (JSON), or with format=md a Markdown document of its checks, RTO and RPO against the objectives, markers and the production lag',
    params: DrillParams,
    query: ReportQuery,
    status: 200,
    response: Drill,
    alternateContentType: 'text/markdown; charset=utf-8',
  }),
  cancelDrill: endpoint({
    operationId: 'cancelDrill',
    method: 'POST',
    path: `${V1}/drills/{id}/cancel`,
    role: 'operator',
    summary: 'Stop a running drill at its next step; its copy is removed',
    audit: 'drill.cancel',
    params: DrillParams,
    status: 200,
    response: Drill,
    // CONFLICT: it has already ended.
    errors: ['CONFLICT'],
  }),
} as const

export const verificationEndpoints = {
  verifyMirror: endpoint({
    operationId: 'verifyMirror',
    method: 'POST',
    path: `${V1}/mirrors/{mirror}/verify`,
    role: 'operator',
    summary: "Compare source and destination over the mirrored range, batch by batch (bytes and CRC on an embedded destination, record content on a Kafka one); runs in the background, throttled",
    audit: 'mirror.verify',
    params: MirrorParams,
    body: VerifyRequest,
    status: 202,
    response: VerificationAccepted,
    // NOT_FOUND: the mirror, or a topic it does not mirror.
    errors: ['NOT_FOUND'],
  }),
  listMirrorVerifications: endpoint({
    operationId: 'listMirrorVerifications',
    method: 'GET',
    path: `${V1}/mirrors/{mirror}/verifications`,
    role: 'viewer',
    summary: "A mirror's verifications, newest first (without their partitions)",
    params: MirrorParams,
    status: 200,
    response: VerificationList,
  }),
  getVerification: endpoint({
    operationId: 'getVerification',
    method: 'GET',
    path: `${V1}/verifications/{id}`,
    role: 'viewer',
    summary: 'One verification: per partition the range checked, batches, bytes, and every mismatch by offset',
    params: VerificationParams,
    status: 200,
    response: Verification,
  }),
  cancelVerification: endpoint({
    operationId: 'cancelVerification',
    method: 'POST',
    path: `${V1}/verifications/{id}/cancel`,
    role: 'operator',
    summary: 'Stop a running verification at its next step (what it compared so far is kept)',
    audit: 'verification.cancel',
    params: VerificationParams,
    status: 200,
    response: Verification,
    // CONFLICT: it has already ended.
    errors: ['CONFLICT'],
  }),
} as const
