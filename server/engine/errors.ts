import 'server-only'

export type EngineErrorCode =
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_MIRROR_STATE'
  | 'CONFIRMATION_REQUIRED'
  | 'SOURCE_UNAVAILABLE'
  | 'PRECONDITION_FAILED'

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
