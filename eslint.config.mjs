import nextVitals from 'eslint-config-next/core-web-vitals'
import nextTypescript from 'eslint-config-next/typescript'

// Dependencies point one way: app → components → lib and app → server → lib (DESIGN.md §2).
const serverImports = { group: ['@/server/*', '@/server', '**/server/*'], message: 'only app/ and server/ may import server code' }
const frameworkImports = [
  { group: ['next', 'next/*'], message: 'lib/ is framework-free domain code' },
  { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'lib/ is framework-free domain code' },
  { group: ['node:*'], message: 'lib/ does no I/O; put Node code in server/' },
]
// Server layering (issue #18): the engine reaches clusters only through their ports; clusters and storage know
// neither the engine nor the HTTP layer; the composition root (server/runtime.ts) wires them together.
const upward = (folder) => [`@/server/${folder}/*`, `../${folder}/*`, `../../${folder}/*`, `../../../${folder}/*`]
const httpImports = { group: [...upward('http'), ...upward('api')], message: 'the HTTP and API layers sit above this one; put shared helpers in server/util/ or server/observability/' }
const rootImports = { group: ['@/server/runtime', '../runtime', '../../runtime', '../../../runtime'], message: 'only route code and the server entry reach the composition root' }
const engineImports = { group: upward('engine'), message: 'server/cluster and server/storage do not know the engine' }
const clusterImplementationImports = {
  group: [...upward('cluster'), '!@/server/cluster/ports', '!../cluster/ports', '!../../cluster/ports', '!../../../cluster/ports', ...upward('storage')],
  message: 'the engine reaches clusters only through server/cluster/ports.ts (tests may use the fakes and the embedded cluster)',
}
const nodeBuiltins = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'stream', 'zlib', 'events', 'util', 'url', 'buffer', 'worker_threads']

const config = [
  { ignores: ['.next/**', 'dist/**', 'node_modules/**', '.kafka/**', 'data/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', '.tmp/**'] },
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['lib/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeBuiltins.map((name) => ({ name, message: 'lib/ does no I/O; put Node code in server/' })), patterns: [serverImports, ...frameworkImports] }],
    },
  },
  {
    files: ['components/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [serverImports] }] },
  },
  {
    files: ['server/engine/**/*.ts'],
    ignores: ['server/engine/**/*.test.ts', 'server/engine/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [clusterImplementationImports, httpImports, rootImports] }] },
  },
  {
    files: ['server/cluster/**/*.ts', 'server/storage/**/*.ts'],
    // End-to-end tests of a cluster kind through the HTTP API (real Kafka brokers) start the whole runtime.
    ignores: ['**/*.integration.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [engineImports, httpImports, rootImports] }] },
  },
  {
    files: ['scripts/**/*.{ts,mjs,js}', '**/*.test.ts', 'e2e/**/*.ts'],
    rules: { '@next/next/no-assign-module-variable': 'off' },
  },
]
export default config
