import 'server-only'
import type { Verification, VerificationSummary, VerifyRequest } from '@/lib/api/verifications'
import type { MirrorEngine } from '../engine/engine'
import type { OperationRequester } from '../engine/types'
import type { Verifier } from '../verification/verifier'

/**
 * The verification endpoints over the verifier (server/verification/): the mirror must exist (NOT_FOUND
 * otherwise, before anything is read), the record is durable before the 202.
 */
export interface VerificationApiDeps {
  engine: Pick<MirrorEngine, 'getMirror'>
  verifier: Verifier
}

export async function startVerification(deps: VerificationApiDeps, mirror: string, body: VerifyRequest, requestedBy: OperationRequester): Promise<{ verification: string }> {
  deps.engine.getMirror(mirror)
  const verification = await deps.verifier.start(mirror, { ...(body.topics === undefined ? {} : { topics: body.topics }), requestedBy })
  return { verification: verification.id }
}

export function listVerifications(deps: VerificationApiDeps, mirror: string): { verifications: VerificationSummary[] } {
  deps.engine.getMirror(mirror)
  return { verifications: deps.verifier.list({ mirror, limit: 100 }) }
}

export function getVerification(deps: VerificationApiDeps, id: string): Verification {
  return deps.verifier.get(id)
}

export function cancelVerification(deps: VerificationApiDeps, id: string): Promise<Verification> {
  return deps.verifier.cancel(id)
}
