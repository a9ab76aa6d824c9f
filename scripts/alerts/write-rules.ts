// `npx tsx scripts/alerts/write-rules.ts`: writes deploy/prometheus/rules.yml from lib/alerts/rules.ts and its
// promtool unit tests (deploy/prometheus/tests.yml) from scripts/alerts/rules-tests.ts.
import { writeFileSync } from 'node:fs'
import { RULES_FILE, rulesFileText } from './rules-file'
import { RULES_TESTS_FILE, rulesTestsText } from './rules-tests'

writeFileSync(RULES_FILE, rulesFileText())
writeFileSync(RULES_TESTS_FILE, rulesTestsText())
console.log(`wrote ${RULES_FILE} and ${RULES_TESTS_FILE}`)
