import { readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'

/**
 * Everything an invocation touches outside itself, passed in so the unit tests drive it with strings: the two
 * output streams, whether they are terminals, the environment, the clock, and a way to read one line typed at
 * the terminal (the failover's confirmation).
 */
export interface Io {
  readonly stdout: Writer
  readonly stderr: Writer
  readonly env: Readonly<Record<string, string | undefined>>
  /** stdin and stdout are both terminals: someone is there to type a confirmation and watch a progress bar. */
  readonly interactive: boolean
  /** stdout is a terminal (colours, progress bars redrawn in place). */
  readonly stdoutIsTty: boolean
  /** Terminal width in columns; 80 when not a terminal. */
  readonly columns: number
  readonly now: () => number
  /** One line typed at the terminal, without its newline; null at end of input. */
  readLine(prompt: string): Promise<string | null>
  readFile(path: string): Promise<string>
  /** Aborted on Ctrl-C: watchers stop and say the server goes on. */
  readonly signal: AbortSignal
}

export interface Writer {
  write(text: string): void
}

/** The process's own streams. */
export function processIo(signal: AbortSignal): Io {
  const stdoutIsTty = process.stdout.isTTY === true
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    interactive: process.stdin.isTTY === true && stdoutIsTty,
    stdoutIsTty,
    columns: process.stdout.columns ?? 80,
    now: Date.now,
    readLine: (prompt) => readLineFromStdin(prompt),
    readFile: (file) => readFile(file, 'utf8'),
    signal,
  }
}

function readLineFromStdin(prompt: string): Promise<string | null> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: true })
    let answered = false
    lines.question(prompt, (answer) => {
      answered = true
      lines.close()
      resolve(answer)
    })
    lines.once('close', () => {
      if (!answered) resolve(null)
    })
  })
}
