import { Command, CommanderError, Option } from 'commander'
import { GLOBAL_OPTIONS, type Action } from './action'
import { EXIT, UsageError } from './exit'
import { Flags, longFlag, type OptionSpec } from './flags'
import type { Io } from './io'

/**
 * Reads a command line the way `kafka-cluster-mirrors.sh` is used: exactly one action flag (`--describe`), its
 * options and the global ones, in any order. The action is found first, then a commander command built from
 * that action's declared options parses the rest, so an option another action takes is as unknown here as a
 * typo. Every problem is a UsageError (exit 2) before anything is sent.
 */

export const PROGRAM = 'mirrorboard'

export type Parsed = { kind: 'help' } | { kind: 'run'; action: Action; flags: Flags }

/** The actions named on the command line, by their flags (nothing after `--` counts). */
export function actionsNamed(argv: readonly string[], actions: readonly Action[]): Action[] {
  const end = argv.indexOf('--')
  const words = end < 0 ? argv : argv.slice(0, end)
  const named = new Set(words.map((word) => word.split('=')[0]))
  return actions.filter((action) => named.has(longFlag(action.flag)))
}

export function parse(argv: readonly string[], actions: readonly Action[], io: Io): Parsed {
  refuseTokenFlag(argv)
  const named = actionsNamed(argv, actions)
  if (named.length === 0) {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout.write(overview(actions))
      return { kind: 'help' }
    }
    throw new UsageError(`name one action: ${actions.map((action) => longFlag(action.flag)).join(', ')}`, `${PROGRAM} --<action> [options]   (${PROGRAM} --help lists them)`)
  }
  if (named.length > 1) {
    throw new UsageError(`one action at a time: ${named.map((action) => longFlag(action.flag)).join(' and ')} were both given`, `${PROGRAM} --<action> [options]   (${PROGRAM} --help lists them)`)
  }
  const action = named[0]!
  const usage = `${PROGRAM} ${action.usage}`
  const command = commandFor(action, io)
  // Before parsing: `--completion --help` would read --help as the shell's name.
  if (argv.includes('--help') || argv.includes('-h')) {
    command.outputHelp()
    return { kind: 'help' }
  }
  try {
    command.parse([...argv], { from: 'user' })
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') return { kind: 'help' }
      throw new UsageError(withoutValues(error.message.replace(/^error: /, '')), usage)
    }
    throw error
  }
  return { kind: 'run', action, flags: new Flags(command.opts(), usage) }
}

function commandFor(action: Action, io: Io): Command {
  const command = new Command(PROGRAM)
    .usage(action.usage)
    .description(`${action.summary}.${action.origin === 'kip' ? ' As in kafka-cluster-mirrors.sh (KIP-1279).' : ''}`)
    .helpOption('-h, --help', 'this help')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text), outputError: () => {} })
  command.addOption(toOption({ flags: action.flag, description: 'this action' }))
  for (const spec of action.options) command.addOption(toOption(spec))
  for (const spec of GLOBAL_OPTIONS) command.addOption(toOption(spec).helpGroup('Options of every action:'))
  const examples = action.examples.map((example) => `  ${example}`).join('\n')
  command.addHelpText('after', `${action.details === undefined ? '' : `\n${action.details.trimEnd()}\n`}\nExample${action.examples.length > 1 ? 's' : ''}:\n${examples}\n`)
  return command
}

function toOption(spec: OptionSpec): Option {
  const created = new Option(spec.flags, spec.description)
  if (spec.choices !== undefined) created.choices([...spec.choices])
  return created
}

/**
 * No `--token`: a flag's value shows in `ps` to every user of the machine. Refused before commander sees it,
 * so the message never repeats the value.
 */
function refuseTokenFlag(argv: readonly string[]): void {
  if (argv.some((word) => word === '--token' || word.startsWith('--token='))) {
    throw new UsageError('there is no --token flag (a flag value shows in ps): set MIRRORBOARD_TOKEN or pass --token-file FILE', `${PROGRAM} --<action> [--token-file FILE] [options]`)
  }
}

/** Commander quotes `--flag=value` whole in its messages; a value may be a secret someone mistyped. */
function withoutValues(message: string): string {
  return message.replace(/'(--?[A-Za-z0-9-]+)=[^']*'/g, "'$1=…'")
}

/** `mirrorboard --help`: every action, the global options, the environment and the exit codes. */
export function overview(actions: readonly Action[]): string {
  const width = Math.max(...actions.map((action) => longFlag(action.flag).length), ...GLOBAL_OPTIONS.map((spec) => spec.flags.length)) + 2
  const row = (left: string, right: string) => `  ${left.padEnd(width)}${right}`
  const group = (origin: Action['origin']) =>
    actions
      .filter((action) => action.origin === origin)
      .map((action) => row(longFlag(action.flag), action.summary))
      .join('\n')
  return [
    `Usage: ${PROGRAM} --<action> [options]`,
    '',
    "Mirrorboard's command line: Apache Kafka's kafka-cluster-mirrors.sh (KIP-1279), with the same actions and flags,",
    'against a Mirrorboard server (--server replaces --bootstrap-server), and the failover tooling beyond it.',
    'One action per invocation; `mirrorboard --<action> --help` shows its options and an example.',
    '',
    'Actions of kafka-cluster-mirrors.sh:',
    group('kip'),
    '',
    "Mirrorboard's own:",
    group('mirrorboard'),
    '',
    'Options of every action:',
    ...GLOBAL_OPTIONS.map((spec) => row(spec.flags, spec.description)),
    row('-h, --help', 'this help, or an action\'s with its flag'),
    '',
    'Environment:',
    row('MIRRORBOARD_URL', 'the server, when --server is not given'),
    row('MIRRORBOARD_TOKEN', 'the API token (operator to change things, viewer to read), when --token-file is not given'),
    row('NO_COLOR', 'set to anything: no colours'),
    '',
    'Exit codes: 0 done, 1 refused by the server or failed (the code and message on stderr), 2 wrong usage (nothing',
    'was sent), 3 the server could not be reached.',
    '',
    'Example:',
    `  export MIRRORBOARD_URL=http://127.0.0.1:3000 MIRRORBOARD_TOKEN=…`,
    `  ${PROGRAM} --describe --mirror dr --json`,
    '',
  ].join('\n')
}

export { EXIT }
