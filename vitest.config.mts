import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))
// `server-only` throws outside a React Server bundle; under vitest the server modules are plain Node code.
const alias = { '@': root, 'server-only': fileURLToPath(new URL('./scripts/test/server-only-stub.ts', import.meta.url)) }

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'server/**/*.test.ts', 'components/**/*.test.ts', 'scripts/**/*.test.ts', 'cli/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', 'node_modules/**'],
          environment: 'node',
          testTimeout: 60_000,
          // Vitest's default on two cores is one worker; the slowest files (the SIGKILL crash tests) spend most
          // of their time waiting on child processes and fsync, so a third worker overlaps that waiting.
          maxWorkers: Math.max(3, availableParallelism() - 1),
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['**/*.integration.test.ts'],
          exclude: ['node_modules/**', '.next/**'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
