import { CodedError } from '../coded-error'

/**
 * Errors thrown by the pure mirror core. Only programming errors and malformed input throw here:
 * an event that the state table does not allow is an ordinary outcome (`changed: false`), never an error.
 */
export type MirrorErrorCode =
  /** Malformed input: an unknown state name, a negative offset, an out-of-range random number. */
  | 'VALIDATION_FAILED'
  /** A bug: a partition value that no transition could have produced (unknown state, missing field). */
  | 'INTERNAL'

export class MirrorError extends CodedError<MirrorErrorCode> {
  constructor(code: MirrorErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options)
    this.name = 'MirrorError'
  }
}
