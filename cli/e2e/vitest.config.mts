import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The command line's suite (cli/e2e/README.md): the built `mirrorboard` against one production server for every
// file, one file at a time (they share the server, and some read its audit log).
const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  resolve: { alias: { '@': root } },
  test: {
    name: 'cli-e2e',
    root,
    include: ['cli/e2e/**/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['cli/e2e/server.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
})
