import type { Api } from './api'
import type { Flags } from './flags'
import { renderJson, renderYaml, type OutputFormat, type Style } from './format'
import type { Io } from './io'

/**
 * What an action runs with: the server connection, where its output goes, and its parsed flags. With --json or
 * --output yaml, stdout carries exactly the result a machine reads; what is said to people on the way (an impact
 * preview, progress, "created") goes to stderr then, and to stdout in a table.
 */

export interface Context {
  readonly io: Io
  readonly api: Api
  readonly out: Output
  readonly flags: Flags
  readonly style: Style
  /** The action's usage line, for usage errors found while running. */
  readonly usage: string
}

export class Output {
  constructor(
    private readonly io: Io,
    readonly format: OutputFormat,
    readonly style: Style,
  ) {}

  get machine(): boolean {
    return this.format !== 'table'
  }

  /** The result: as JSON or YAML when asked, else what `human` renders. */
  result(value: unknown, human: () => string): void {
    this.io.stdout.write(this.format === 'json' ? renderJson(value) : this.format === 'yaml' ? renderYaml(value) : human())
  }

  /** Words for people beside the result: stdout for a table, stderr when stdout is for a machine. */
  note(text: string): void {
    const line = text.endsWith('\n') ? text : `${text}\n`
    if (this.machine) this.io.stderr.write(line)
    else this.io.stdout.write(line)
  }

  /** A warning, always on stderr. */
  warn(text: string): void {
    this.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  }
}
