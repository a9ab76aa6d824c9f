import 'server-only'
import { AsyncLocalStorage } from 'node:async_hooks'
import pino, { type Logger as PinoLogger } from 'pino'

/**
 * Structured logs on pino: one JSON object per line on stderr (`level`, `at`, `message`, the fields), the
 * request id of the request being served on every line written while serving it, and secrets removed by
 * path before a line is written. `npm run dev` pipes the lines through pino-pretty; production keeps JSON.
 * `MIRRORBOARD_LOG_LEVEL` (default `info`) sets the threshold; `debug` adds a line per API request.
 */
type Fields = Record<string, unknown>

export interface Logger {
  debug(message: string, fields?: Fields): void
  info(message: string, fields?: Fields): void
  warn(message: string, fields?: Fields): void
  error(message: string, fields?: Fields): void
  child(context: Fields): Logger
}

/**
 * Fields that hold secrets wherever a caller puts them (top level, or one or two objects down): tokens,
 * passwords, authorization and cookie headers, SASL and TLS material. Their values are written as
 * `[redacted]`. Receiver URLs are logged only in their redacted form (lib/alerts/receiver-url.ts).
 */
const SECRET_KEYS = ['token', 'password', 'secret', 'authorization', 'cookie', 'apiKey', 'privateKey', 'sasl', 'key', 'cert', 'ca', 'webhookUrl']
export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`])
export const REDACTED = '[redacted]'

// Shared by every copy of this module (Next loads it once for instrumentation and again in each route bundle).
const CONTEXT = Symbol.for('mirrorboard.requestContext')
const holder = globalThis as typeof globalThis & { [CONTEXT]?: AsyncLocalStorage<{ requestId: string }> }
const requestContext = (holder[CONTEXT] ??= new AsyncLocalStorage<{ requestId: string }>())

/** Runs `work` with `requestId` on every log line it writes, awaited work included. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return requestContext.run({ requestId }, work)
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId
}

/** JSON.stringify drops an Error's message and stack: flattened with their code and cause chain, in any field. */
function serialize(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code
    return {
      name: value.name,
      message: value.message,
      ...(code === undefined ? {} : { code }),
      stack: value.stack,
      ...(value.cause === undefined || depth > 3 ? {} : { cause: serialize(value.cause, depth + 1) }),
    }
  }
  return value
}

/**
 * The pino instance (tests give their own destination to read what it writes). Lines go through
 * process.stderr's write, looked up at each line, so what captures the process's output sees them; stderr
 * on a file or a pipe writes synchronously, so a crash loses no line written before it.
 */
export function createPino(destination: pino.DestinationStream = { write: (line: string) => process.stderr.write(line) }): PinoLogger {
  return pino(
    {
      level: process.env.MIRRORBOARD_LOG_LEVEL ?? 'info',
      messageKey: 'message',
      base: undefined,
      timestamp: () => `,"at":"${new Date().toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => {
          const out: Fields = {}
          for (const [key, value] of Object.entries(object)) out[key] = serialize(value)
          return out
        },
      },
      mixin: () => {
        const requestId = currentRequestId()
        return requestId === undefined ? {} : { requestId }
      },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
    },
    destination,
  )
}

/** Our Logger over a pino instance; a child's fields replace its parent's of the same name (pino would write both). */
export function wrap(root: PinoLogger, context: Fields = {}): Logger {
  const instance = Object.keys(context).length === 0 ? root : root.child(context)
  return {
    debug: (message, fields = {}) => instance.debug(fields, message),
    info: (message, fields = {}) => instance.info(fields, message),
    warn: (message, fields = {}) => instance.warn(fields, message),
    error: (message, fields = {}) => instance.error(fields, message),
    child: (more) => wrap(root, { ...context, ...more }),
  }
}

export const logger: Logger = wrap(createPino()).child({ module: 'http' })
