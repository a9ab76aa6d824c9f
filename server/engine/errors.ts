import 'server-only'
import type { MirrorLoop } from '@/lib/mirror/mirror-loop'

export type EngineErrorCode =
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_MIRROR_STATE'
  | 'CONFIRMATION_REQUIRED'
  | 'SOURCE_UNAVAILABLE'
  | 'PRECONDITION_FAILED'
  | 'RPO_OBJECTIVE_EXCEEDED'

/** A request the engine refuses; nothing was changed. The HTTP layer maps `code` to a status. */
export class EngineError extends Error {
  readonly code: EngineErrorCode
  readonly details?: Record<string, unknown>

  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'EngineError'
    this.code = code
    this.details = options?.details
  }
}

/** The refusal of a start that would close a mirror loop: the same words for the start, its dry run and a create. */
export function mirrorLoopRefusal(loop: MirrorLoop): EngineError {
  const [firstState] = Object.values(loop.states)
  return new EngineError('CONFLICT', `mirror loop: mirror ${loop.mirror} on the source still mirrors ${loop.topic} from this cluster (${firstState}); fail it over or stop it first`, {
    details: { mirror: loop.mirror, topic: loop.topic, states: loop.states },
  })
}
