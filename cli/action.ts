import type { Context } from './context'
import { option, type OptionSpec } from './flags'
import { OUTPUT_FORMATS } from './format'

/**
 * One action of the command line: `kafka-cluster-mirrors.sh`'s (`origin: 'kip'`, same flag, same options) or
 * one of ours. Exactly one action per invocation, named by its flag (`mirrorboard --describe --mirror dr`), as
 * the KIP's tool has it. Everything about an action is here, so its --help, its parsing and its shell
 * completion cannot disagree.
 */
export interface Action {
  /** `describe`; the flag is `--describe`. */
  readonly name: string
  /** The action flag as commander reads it: `--describe`, or `--clusters [action]` when it takes a value. */
  readonly flag: string
  readonly origin: 'kip' | 'mirrorboard'
  readonly summary: string
  /** The usage line after `mirrorboard `. */
  readonly usage: string
  /** Whole command lines, shown under --help. */
  readonly examples: readonly string[]
  readonly options: readonly OptionSpec[]
  /** Paragraphs for --help beyond the options (what the output means, what is asked). */
  readonly details?: string
  /** The exit code; 0 when nothing is returned. */
  run(context: Context): Promise<number | void>
}

/** Every action takes these. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  option('--server <url>', 'the Mirrorboard server (default: $MIRRORBOARD_URL, else http://127.0.0.1:3000)'),
  option('--token-file <file>', 'read the API token from this file (default: $MIRRORBOARD_TOKEN); never a flag value, which ps would show', { complete: 'file' }),
  option('--output <format>', 'table (default), json or yaml', { choices: OUTPUT_FORMATS }),
  option('--json', 'the same as --output json'),
  option('--no-color', 'no colours (neither when NO_COLOR is set or the output is not a terminal)'),
  option('--timeout <seconds>', 'give up on a request the server has not answered after this long (default 30)'),
]

export const MIRROR_OPTION = option('--mirror <name>', 'the mirror')
export const TOPICS_OPTION = option('--topics <regex,...>', "topics matching any of these patterns (RE2, whole names; all of the mirror's topics when left out)")
