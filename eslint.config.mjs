import nextVitals from 'eslint-config-next/core-web-vitals'
import nextTypescript from 'eslint-config-next/typescript'

// Which layer may import which (and no cycles) is checked on resolved imports by dependency-cruiser
// (.dependency-cruiser.cjs, `npm run lint:layers`), not here: a per-import pattern misses paths spelled another way.

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
    files: ['scripts/**/*.{ts,mjs,js}', '**/*.test.ts', 'e2e/**/*.ts'],
    rules: { '@next/next/no-assign-module-variable': 'off' },
  },
  {
    // The `mirrorboard` bin is CommonJS on purpose: it runs before any build, and requires the compiled command line.
    files: ['cli/bin.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
]
export default config
