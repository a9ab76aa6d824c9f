import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Mutation testing (stryker.config.mjs) runs one flat vitest project: the tests of the target under mutation.
const root = fileURLToPath(new URL('.', import.meta.url))
const alias = { '@': root, 'server-only': fileURLToPath(new URL('./scripts/test/server-only-stub.ts', import.meta.url)) }
const target = process.env.MUTATION_TARGET ?? 'mirror'
const include = target === 'engine' ? ['server/engine/**/*.test.ts'] : ['lib/mirror/**/*.test.ts']

export default defineConfig({
  resolve: { alias },
  test: {
    include,
    exclude: ['**/*.integration.test.ts', 'node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
  },
})
