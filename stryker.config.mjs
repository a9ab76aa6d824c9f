// @ts-check
// `npm run mutation` (lib/mirror/) and `npm run mutation -- engine` (the engine's STOPPING, PREPARING and
// sync paths). Not part of `npm test`: a full run takes minutes to hours on a shared machine.
import { readFileSync } from 'node:fs'

const target = process.env.MUTATION_TARGET ?? 'mirror'

/** Lines `from`..`to` of a file, found by the markers that open and close a region, so edits elsewhere keep it. */
function region(file, startMarker, endMarker) {
  const lines = readFileSync(file, 'utf8').split('\n')
  const start = lines.findIndex((line) => line.includes(startMarker))
  const end = lines.findIndex((line, index) => index > start && line.includes(endMarker))
  if (start < 0 || end < 0) throw new Error(`mutation target: markers ${startMarker} / ${endMarker} not found in ${file}`)
  return `${file}:${start + 1}-${end}`
}

const targets = {
  mirror: ['lib/mirror/**/*.ts', '!lib/mirror/**/*.test.ts'],
  engine: [
    'server/engine/preparing/*.ts',
    'server/engine/syncs/*.ts',
    '!server/engine/**/*.test.ts',
    // The runner's PREPARING effects (the position lookup, the truncation, the replica convergence check).
    region('server/engine/runner/partition-runner.ts', "case 'lookUpLastMirrorPosition':", "case 'bumpLeaderEpoch': {"),
    // The STOPPING sequence, a file of its own since the engine split.
    'server/engine/runner/stopping-sequence.ts',
  ],
}
if (!(target in targets)) throw new Error(`unknown mutation target ${target}; one of ${Object.keys(targets).join(', ')}`)
/** One file of the target per run (scripts/mutation/run.mjs): each run's results are kept even if a later one is stopped. */
const chunk = process.env.MUTATION_CHUNK
const chunkName = chunk ? `-${chunk.replace(/[^a-z0-9]+/gi, '_')}` : ''
export const MUTATION_TARGETS = targets

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.mts', related: false },
  mutate: chunk ? [chunk] : targets[target],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  // Two cores shared by the whole team.
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  incremental: true,
  incrementalFile: `.stryker/incremental-${target}${chunkName}.json`,
  tempDirName: '.stryker/tmp',
  // Build output, browser-test artefacts and data are no input of lib/ tests: copying them into every sandbox is
  // slow, and a Playwright run writing them meanwhile made the copy fail (ENOENT on a trace file).
  ignorePatterns: ['/.next', '/test-results', '/playwright-report', '/playwright-report-demo', '/.tmp', '/data', '/dist', '/.kafka', '/.schemathesis'],
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `.stryker/report-${target}${chunkName}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: false },
  thresholds: { high: 90, low: 85, break: null },
  // Generous: under the shared machine's load a slow test is not an infinite loop, and every timeout restarts a worker.
  timeoutMS: 60_000,
  timeoutFactor: 3,
}

export default config
