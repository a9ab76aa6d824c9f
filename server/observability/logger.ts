import 'server-only'

/**
 * Structured log lines (one JSON object per line on stderr) for the HTTP layer. Errors are flattened with
 * their code and cause chain, since JSON.stringify drops an Error's message and stack.
 */
type Fields = Record<string, unknown>

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

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields, context: Fields): void {
  const entry: Fields = { level, at: new Date().toISOString(), message, ...context }
  for (const [key, value] of Object.entries(fields)) entry[key] = serialize(value)
  process.stderr.write(`${JSON.stringify(entry)}\n`)
}

export interface Logger {
  info(message: string, fields?: Fields): void
  warn(message: string, fields?: Fields): void
  error(message: string, fields?: Fields): void
  child(context: Fields): Logger
}

function createLogger(context: Fields): Logger {
  return {
    info: (message, fields = {}) => write('info', message, fields, context),
    warn: (message, fields = {}) => write('warn', message, fields, context),
    error: (message, fields = {}) => write('error', message, fields, context),
    child: (more) => createLogger({ ...context, ...more }),
  }
}

export const logger: Logger = createLogger({ module: 'http' })
