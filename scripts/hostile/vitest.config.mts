import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The hostile-input suite (scripts/hostile/README.md): one production server for every file, one file at a time.
const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig({
  resolve: { alias: { '@': root } },
  test: {
    name: 'hostile',
    root,
    include: ['scripts/hostile/**/*.hostile.ts'],
    environment: 'node',
    globalSetup: ['scripts/hostile/server.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
