import nextVitals from 'eslint-config-next/core-web-vitals'
import nextTypescript from 'eslint-config-next/typescript'

// Dependencies point one way: app → components → lib and app → server → lib (DESIGN.md §2).
const serverImports = { group: ['@/server/*', '@/server', '**/server/*'], message: 'only app/ and server/ may import server code' }
const frameworkImports = [
  { group: ['next', 'next/*'], message: 'lib/ is framework-free domain code' },
  { group: ['react', 'react/*', 'react-dom', 'react-dom/*'], message: 'lib/ is framework-free domain code' },
  { group: ['node:*'], message: 'lib/ does no I/O; put Node code in server/' },
]
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
    files: ['scripts/**/*.{ts,mjs,js}', '**/*.test.ts', 'e2e/**/*.ts'],
    rules: { '@next/next/no-assign-module-variable': 'off' },
  },
]
export default config
