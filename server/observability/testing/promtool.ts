import { spawnSync } from 'node:child_process'
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * What promtool's linter says of prom-client's own Node.js metrics: gauges whose names end in `_total`. They
 * are named by prom-client, and kept as it names them (dashboards built for prom-client expect them).
 */
export const PROM_CLIENT_LINT_PROBLEMS: readonly string[] = [
  'nodejs_active_handles_total non-counter metrics should not have "_total" suffix',
  'nodejs_active_requests_total non-counter metrics should not have "_total" suffix',
  'nodejs_active_resources_total non-counter metrics should not have "_total" suffix',
]

export interface PromtoolVerdict {
  /** Parsed, and every lint problem is one of prom-client's own. */
  valid: boolean
  status: number | null
  /** Lint problems (exit status 3), or the parse error (status 1). */
  output: string[]
}

/**
 * `promtool check metrics` over an exposition (Debian's prometheus; scripts/lib/ensure.sh installs it for
 * npm test). The text goes in from a file: promtool stops reading at a parse error, and a pipe would break.
 */
export function promtoolCheckMetrics(text: string): PromtoolVerdict {
  const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-promtool-'))
  try {
    const file = path.join(dir, 'metrics.prom')
    writeFileSync(file, text)
    const input = openSync(file, 'r')
    try {
      const result = spawnSync('promtool', ['check', 'metrics'], { stdio: [input, 'pipe', 'pipe'], encoding: 'utf8' })
      if (result.error) throw new Error(`promtool did not run (${result.error.message}): npm test installs it (ensure_prometheus in scripts/lib/ensure.sh), or apt-get install prometheus`)
      const output = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '')
      const valid = result.status === 0 || (result.status === 3 && output.every((line) => PROM_CLIENT_LINT_PROBLEMS.includes(line.trim())))
      return { valid, status: result.status, output }
    } finally {
      closeSync(input)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
