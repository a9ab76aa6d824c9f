import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Mutation testing (stryker.config.mjs) runs one flat vitest project: the tests of the target under mutation.
const root = fileURLToPath(new URL('.', import.meta.url))
const alias = { '@': root, 'server-only': fileURLToPath(new URL('./scripts/test/server-only-stub.ts', import.meta.url)) }
const target = process.env.MUTATION_TARGET ?? 'mirror'
/**
 * The engine's STOPPING, PREPARING and sync paths are exercised by the engine tests that run a failover, a
 * failback or a sync on embedded clusters; the rest of server/engine/ (operations, queries, lag, the SIGKILL
 * crash tests, whose child processes Stryker cannot switch mutants in) would only make every mutant slower.
 */
const ENGINE_TESTS = [
  'server/engine/worked-example.test.ts',
  'server/engine/kip-mistakes.test.ts',
  'server/engine/kip-fixes.test.ts',
  'server/engine/engine-behaviours.test.ts',
  'server/engine/admin-surface.test.ts',
  'server/engine/stopping-resume.test.ts',
  'server/engine/sync-rules.test.ts',
  'server/engine/preparing-lookup.test.ts',
  'server/engine/start-refusals.test.ts',
  'server/engine/topic-sync.test.ts',
  // Session 14: ULE recovery's replica check on port fakes (the runner's convergence effect), and the sync
  // error counts (topic-sync's per-step failures).
  'server/engine/replica-convergence.test.ts',
  'server/engine/mirror-metrics.test.ts',
  'server/engine/preparing/lookup-paths.test.ts',
  'server/engine/runner/stopping-io.test.ts',
  // Session 15: which partition states keep a topic in the periodic sync and when configs are written
  // (topic-sync's survivors); the sync past a topic missing on the destination (group-offset-sync's and topic-sync's).
  'server/engine/syncs/sync-states.test.ts',
  'server/engine/syncs/group-offset-sync.test.ts',
]
const include = target === 'engine' ? ENGINE_TESTS : ['lib/mirror/**/*.test.ts']

export default defineConfig({
  resolve: { alias },
  test: {
    include,
    exclude: ['**/*.integration.test.ts', 'node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
  },
})
