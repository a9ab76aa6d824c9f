import type { Io } from '../io'

/** An Io whose streams are strings: what an invocation printed, read back by the unit tests. */
export interface MemoryIo extends Io {
  readonly out: () => string
  readonly err: () => string
}

export function memoryIo(options: { env?: Record<string, string>; files?: Record<string, string>; typed?: string | null; interactive?: boolean; tty?: boolean; now?: number } = {}): MemoryIo {
  let out = ''
  let err = ''
  const files = options.files ?? {}
  return {
    stdout: { write: (text: string) => void (out += text) },
    stderr: { write: (text: string) => void (err += text) },
    env: options.env ?? {},
    interactive: options.interactive ?? false,
    stdoutIsTty: options.tty ?? false,
    columns: 100,
    now: () => options.now ?? 1_764_400_000_000,
    readLine: async (prompt: string) => {
      out += prompt
      return options.typed ?? null
    },
    readFile: async (file: string) => {
      const text = files[file]
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
      return text
    },
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  }
}
