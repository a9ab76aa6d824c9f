/**
 * The one base of the project's coded errors (`StorageError`, `MirrorError`, `ApiError`, `ClusterError`):
 * an `Error` with a typed `code` the callers branch on, the `cause` kept, and optional structured `details`.
 * It lives at the root of lib/ so that every layer can extend it without importing another layer.
 */
export class CodedError<Code extends string = string> extends Error {
  readonly code: Code
  /** Present only when given, so that errors without details stay as they were. */
  declare readonly details?: Record<string, unknown>

  constructor(code: Code, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options?.details !== undefined) Object.defineProperty(this, 'details', { value: options.details, enumerable: true })
  }
}

export function isCodedError(error: unknown): error is CodedError {
  return error instanceof CodedError
}
