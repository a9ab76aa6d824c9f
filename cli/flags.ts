import { UsageError } from './exit'

/**
 * Options as data: each action declares its flags once (`OptionSpec`), and the same list builds the commander
 * command, its --help, and the shell completions (completion.ts). `Flags` reads the parsed values with types,
 * refusing a missing or malformed value as a usage error before anything is sent.
 */

export interface OptionSpec {
  /** Commander's spelling: `--mirror <name>`, `--failed`, `--clusters [action]`. */
  readonly flags: string
  readonly description: string
  /** Allowed values, for --help, validation and completion. */
  readonly choices?: readonly string[]
  /** What the value completes to in a shell: a file name, a mirror of the server (not fetched: listed as a hint). */
  readonly complete?: 'file'
}

export function option(flags: string, description: string, extra: Omit<OptionSpec, 'flags' | 'description'> = {}): OptionSpec {
  return { flags, description, ...extra }
}

/** `--mirror-config <file>` → `mirrorConfig`, as commander names the value. */
export function attributeName(flags: string): string {
  const long = longFlag(flags)
  return long
    .replace(/^--(no-)?/, '')
    .split('-')
    .map((part, index) => (index === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('')
}

export function longFlag(flags: string): string {
  const long = flags.split(/[ ,|]+/).find((part) => part.startsWith('--'))
  if (long === undefined) throw new Error(`no long flag in ${flags}`)
  return long
}

export function takesValue(flags: string): boolean {
  return /[<[]/.test(flags)
}

export class Flags {
  constructor(
    private readonly values: Readonly<Record<string, unknown>>,
    private readonly usage: string,
  ) {}

  has(name: string): boolean {
    const value = this.values[name]
    return value !== undefined && value !== false
  }

  boolean(name: string): boolean {
    return this.values[name] === true
  }

  string(name: string): string | undefined {
    const value = this.values[name]
    if (value === undefined || value === false) return undefined
    if (typeof value !== 'string') throw new UsageError(`--${flagName(name)} needs a value`, this.usage)
    return value
  }

  /** An option whose value may be left out (`--clusters [action]`): true when given bare. */
  optional(name: string): string | true | undefined {
    const value = this.values[name]
    return value === true ? true : this.string(name)
  }

  required(name: string, why = ''): string {
    const value = this.string(name)
    if (value === undefined || value === '') throw new UsageError(`--${flagName(name)} is required${why === '' ? '' : ` ${why}`}`, this.usage)
    return value
  }

  choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const value = this.string(name)
    if (value === undefined) return undefined
    const found = choices.find((choice) => choice === value)
    if (found === undefined) throw new UsageError(`--${flagName(name)} must be one of ${choices.join(', ')} (got "${value}")`, this.usage)
    return found
  }

  integer(name: string, { min, max }: { min: number; max: number }): number | undefined {
    const value = this.string(name)
    if (value === undefined) return undefined
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${flagName(name)} must be an integer from ${min} to ${max} (got "${value}")`, this.usage)
    return Number(value)
  }

  /** A comma-separated list, trimmed, empty entries dropped; undefined when the flag is absent. */
  list(name: string): string[] | undefined {
    const value = this.string(name)
    if (value === undefined) return undefined
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
    if (items.length === 0) throw new UsageError(`--${flagName(name)} names nothing`, this.usage)
    return items
  }

  usageError(message: string): UsageError {
    return new UsageError(message, this.usage)
  }
}

/** `mirrorConfig` → `mirror-config`. */
export function flagName(attribute: string): string {
  return attribute.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}
