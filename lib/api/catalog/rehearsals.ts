import { MirrorParams } from '../mirrors'
import { Verification, VerificationAccepted, VerificationList, VerificationParams, VerifyRequest } from '../verifications'
import { endpoint, V1 } from './endpoint'

/**
 * What proves a failover works before and after it is needed (API.md §"Round 3" "Drills, verification,
 * reports"), gathered by lib/api/endpoints.ts: verifications of a mirror.
 */

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
