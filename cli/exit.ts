/**
 * What an invocation ends with, as scripts read it: 0 done, 1 refused by the server or failed (the operation,
 * the verification), 2 the command line was wrong and nothing was sent, 3 the server could not be reached.
 * Every failure is one of these errors; main.ts prints it and exits with its code.
 */

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3, interrupted: 130 } as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** The command line is wrong: nothing was sent. `usage` is the action's usage line, printed under the message. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * The server refused (an API error code and its message), or what was started ended badly (code
 * `OPERATION_FAILED`, `VERIFICATION_MISMATCHED`, ...). Printed as `CODE: message` on stderr.
 */
export class RefusedError extends Error {
  readonly exitCode = EXIT.refused
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'RefusedError'
  }
}

/** No answer from the server: connection refused, DNS, TLS, or no answer within the timeout. */
export class UnreachableError extends Error {
  readonly exitCode = EXIT.unreachable
  constructor(message: string) {
    super(message)
    this.name = 'UnreachableError'
  }
}

export type CliError = UsageError | RefusedError | UnreachableError

export function isCliError(error: unknown): error is CliError {
  return error instanceof UsageError || error instanceof RefusedError || error instanceof UnreachableError
}
