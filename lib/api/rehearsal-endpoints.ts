import { MirrorParams } from './mirrors'
import { Verification, VerificationAccepted, VerificationList, VerificationParams, VerifyRequest } from './verifications'

/**
 * The catalog entries of what proves a failover works before and after it is needed (API.md §"Round 3"
 * "Drills, verification, reports"): verifications of a mirror. lib/api/endpoints.ts lists them in
 * SERVED_ENDPOINTS; each entry has the catalog's `Endpoint` shape (checked there), written without importing
 * it so the catalog and this file do not import each other.
 */

const v1 = '/api/v1'

export const verificationEndpoints = {
  verifyMirror: {
    operationId: 'verifyMirror',
    method: 'POST',
    path: `${v1}/mirrors/{mirror}/verify`,
    role: 'operator',
    summary: "Compare source and destination over the mirrored range, batch by batch (bytes and CRC on an embedded destination, record content on a Kafka one); runs in the background, throttled",
    audit: 'mirror.verify',
    params: MirrorParams,
    body: VerifyRequest,
    status: 202,
    response: VerificationAccepted,
    // NOT_FOUND: the mirror, or a topic it does not mirror.
    errors: ['NOT_FOUND'],
  },
  listMirrorVerifications: {
    operationId: 'listMirrorVerifications',
    method: 'GET',
    path: `${v1}/mirrors/{mirror}/verifications`,
    role: 'viewer',
    summary: "A mirror's verifications, newest first (without their partitions)",
    params: MirrorParams,
    status: 200,
    response: VerificationList,
  },
  getVerification: {
    operationId: 'getVerification',
    method: 'GET',
    path: `${v1}/verifications/{id}`,
    role: 'viewer',
    summary: 'One verification: per partition the range checked, batches, bytes, and every mismatch by offset',
    params: VerificationParams,
    status: 200,
    response: Verification,
  },
  cancelVerification: {
    operationId: 'cancelVerification',
    method: 'POST',
    path: `${v1}/verifications/{id}/cancel`,
    role: 'operator',
    summary: 'Stop a running verification at its next step (what it compared so far is kept)',
    audit: 'verification.cancel',
    params: VerificationParams,
    status: 200,
    response: Verification,
    // CONFLICT: it has already ended.
    errors: ['CONFLICT'],
  },
} as const
