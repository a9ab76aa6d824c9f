import { ACTIONS } from './actions'
import { Api } from './api'
import { Output, type Context } from './context'
import { EXIT, isCliError, RefusedError, UsageError } from './exit'
import type { Flags } from './flags'
import { colorWanted, OUTPUT_FORMATS, type OutputFormat } from './format'
import { processIo, type Io } from './io'
import { parse, PROGRAM } from './program'

/**
 * `mirrorboard`: the entry point. Parses the command line (program.ts), connects (api.ts) and runs the one
 * action named; every failure ends here, printed on stderr as `mirrorboard: …` and turned into its exit code
 * (exit.ts). cli/bin.js runs `runFromProcess` from the compiled build.
 */

export const DEFAULT_SERVER = 'http://127.0.0.1:3000'
const DEFAULT_TIMEOUT_SECONDS = 30

export interface MainOptions {
  readonly fetch?: typeof fetch
}

export async function main(argv: readonly string[], io: Io, options: MainOptions = {}): Promise<number> {
  // A usage error found once the action is known (a value the API's schema refuses) shows its usage line.
  let usage: string | undefined
  try {
    const parsed = parse(argv, ACTIONS, io)
    if (parsed.kind === 'help') return EXIT.ok
    const { action, flags } = parsed
    usage = `${PROGRAM} ${action.usage}`
    const format = outputFormat(flags)
    const style = { color: colorWanted(io.env, io.stdoutIsTty, !flags.boolean('color')) }
    const api = new Api({ server: serverUrl(flags, io), token: await token(flags, io), timeoutMs: (flags.integer('timeout', { min: 1, max: 86_400 }) ?? DEFAULT_TIMEOUT_SECONDS) * 1000, signal: io.signal, fetch: options.fetch })
    const context: Context = { io, api, out: new Output(io, format, style), flags, style, usage }
    return (await action.run(context)) ?? EXIT.ok
  } catch (error) {
    return report(error, io, usage)
  }
}

function outputFormat(flags: Flags): OutputFormat {
  const output = flags.choice('output', OUTPUT_FORMATS)
  if (flags.boolean('json') && output !== undefined && output !== 'json') throw flags.usageError(`--json and --output ${output} disagree`)
  return flags.boolean('json') ? 'json' : (output ?? 'table')
}

/** --server, else MIRRORBOARD_URL, else the local default; an http(s) URL, kept without its trailing slash. */
export function serverUrl(flags: Flags, io: Pick<Io, 'env'>): string {
  const flag = flags.string('server')
  const env = io.env.MIRRORBOARD_URL || undefined
  const text = (flag ?? env ?? DEFAULT_SERVER).trim()
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw flags.usageError(`${flag !== undefined ? '--server' : 'MIRRORBOARD_URL'} is not a URL: ${text}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw flags.usageError(`the server URL must be http:// or https:// (got ${url.protocol})`)
  if (url.username !== '' || url.password !== '') throw flags.usageError('the server URL must not hold credentials: set MIRRORBOARD_TOKEN or pass --token-file')
  if (url.search !== '' || url.hash !== '') throw flags.usageError('the server URL must not have a query or fragment')
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** --token-file, else MIRRORBOARD_TOKEN; null when neither (the server then answers 401). */
async function token(flags: Flags, io: Io): Promise<string | null> {
  const file = flags.string('tokenFile')
  if (file !== undefined) {
    let text: string
    try {
      text = await io.readFile(file)
    } catch (error) {
      throw flags.usageError(`cannot read --token-file ${file}: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}`)
    }
    const value = text.trim()
    if (value === '') throw flags.usageError(`--token-file ${file} is empty`)
    return value
  }
  const value = (io.env.MIRRORBOARD_TOKEN ?? '').trim()
  return value === '' ? null : value
}

function report(error: unknown, io: Io, actionUsage: string | undefined): number {
  if (io.signal.aborted) {
    io.stderr.write(`${PROGRAM}: interrupted\n`)
    return EXIT.interrupted
  }
  if (error instanceof UsageError) {
    const usage = error.usage ?? actionUsage
    io.stderr.write(`${PROGRAM}: ${error.message}\n${usage === undefined ? '' : `Usage: ${usage}\n`}`)
    return error.exitCode
  }
  if (error instanceof RefusedError) {
    io.stderr.write(`${PROGRAM}: ${error.code}: ${error.message}\n${issueLines(error.details)}`)
    return error.exitCode
  }
  if (isCliError(error)) {
    io.stderr.write(`${PROGRAM}: ${error.message}\n`)
    return error.exitCode
  }
  io.stderr.write(`${PROGRAM}: INTERNAL: ${error instanceof Error ? error.message : String(error)}\n`)
  return EXIT.refused
}

/** A validation refusal's issues, one a line, as the server listed them. */
function issueLines(details: Record<string, unknown> | undefined): string {
  const issues = details?.issues
  if (!Array.isArray(issues)) return ''
  return issues
    .map((issue: unknown) => {
      if (typeof issue !== 'object' || issue === null) return ''
      const { path, message } = issue as { path?: unknown; message?: unknown }
      return `  ${typeof path === 'string' && path !== '' ? `${path}: ` : ''}${typeof message === 'string' ? message : ''}\n`
    })
    .join('')
}

/** The process's run: Ctrl-C aborts what is in flight (a watch says the server goes on), then the exit code. */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  // A closed pipe (`mirrorboard … | head`) ends the run quietly, as other command-line tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok)
  })
  process.exitCode = await main(process.argv.slice(2), processIo(controller.signal))
}
