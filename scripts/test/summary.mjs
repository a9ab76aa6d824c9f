// Prints one closing line for the whole of `npm test`, counted from the runners' JSON reports.
import { readFileSync, existsSync } from 'node:fs'
import path from 'node:path'

const dir = process.argv[2] ?? 'test-results/summary'
let passed = 0
let failed = 0
let skipped = 0
for (const name of ['unit.json', 'integration.json', 'cli-e2e.json']) {
  const file = path.join(dir, name)
  if (!existsSync(file)) throw new Error(`missing vitest report ${file}`)
  const report = JSON.parse(readFileSync(file, 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
  console.log(`${name.replace('.json', '')}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`)
}
for (const name of ['e2e.json', 'e2e-phone.json', 'e2e-demo.json', 'e2e-oidc.json', 'e2e-ha.json']) {
  const file = path.join(dir, name)
  if (!existsSync(file)) throw new Error(`missing playwright report ${file}`)
  const e2e = JSON.parse(readFileSync(file, 'utf8')).stats
  passed += e2e.expected + e2e.flaky
  failed += e2e.unexpected
  skipped += e2e.skipped
  console.log(`${name.replace('.json', '')}: ${e2e.expected + e2e.flaky} passed, ${e2e.unexpected} failed`)
}
if (passed === 0) throw new Error('no test ran')
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
