import 'server-only'
import path from 'node:path'

export interface RuntimeConfig {
  /** Where embedded clusters, mirror state, tokens and the audit log live. */
  dataDir: string
  /** True when started by `npm run demo` or with MIRRORBOARD_DEMO=1. */
  demo: boolean
  /** MIRRORBOARD_METRICS_PUBLIC=1 lets anyone scrape /api/metrics; otherwise it needs a viewer. */
  metricsPublic: boolean
  /** Tokens given in the environment; the ones left out are generated and kept in `<dataDir>/tokens.json`. */
  tokens: { operator: string | undefined; viewer: string | undefined }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

/** Reads the process environment once, at the composition root; nothing else reads env flags. */
export function readRuntimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  return {
    // The data dir is chosen at run time; tracing it at build time would pull the whole project into the output.
    dataDir: path.resolve(/*turbopackIgnore: true*/ env.MIRRORBOARD_DATA_DIR?.trim() || './data'),
    demo: env.MIRRORBOARD_DEMO === '1',
    metricsPublic: env.MIRRORBOARD_METRICS_PUBLIC === '1',
    tokens: { operator: nonEmpty(env.MIRRORBOARD_OPERATOR_TOKEN), viewer: nonEmpty(env.MIRRORBOARD_VIEWER_TOKEN) },
  }
}
