/**
 * Errors thrown by the pure mirror core. Only programming errors and malformed input throw here:
 * an event that the state table does not allow is an ordinary outcome (`changed: false`), never an error.
 */
export type MirrorErrorCode =
  /** Malformed input: an unknown state name, a negative offset, an out-of-range random number. */
  | 'VALIDATION_FAILED'
  /** A bug: a partition value that no transition could have produced (unknown state, missing field). */
  | 'INTERNAL'

export class MirrorError extends Error {
  readonly code: MirrorErrorCode

  constructor(code: MirrorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'MirrorError'
    this.code = code
  }
}
