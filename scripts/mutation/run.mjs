// `npm run mutation [-- mirror|engine] [--only <file-substring>[,<file-substring>…]]`: runs StrykerJS on one target, one file per
// run (each run is incremental and keeps its results, so a stopped run loses one file at most), then prints
// the score per file and for the whole target from the JSON reports.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const args = process.argv.slice(2)
const target = args[0] && !args[0].startsWith('-') ? args[0] : 'mirror'
const onlyIndex = args.indexOf('--only')
// --only narrows a run to some files, in the order given (the most important first on a busy machine).
const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',').filter(Boolean) : undefined

/** Files matching a glob of `*` and `**` (Node 20 has no fs.globSync). */
function globFiles(glob) {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(?:.*/)?')
  const pattern = new RegExp(`^${source}$`)
  const base = glob.slice(0, glob.indexOf('*')).replace(/\/[^/]*$/, '') || '.'
  return readdirSync(base, { recursive: true })
    .map((entry) => path.posix.join(base, String(entry).split(path.sep).join('/')))
    .filter((file) => pattern.test(file))
}

process.env.MUTATION_TARGET = target
const { MUTATION_TARGETS } = await import('../../stryker.config.mjs')
const patterns = MUTATION_TARGETS[target]
const excluded = patterns.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1))
const chunks = patterns
  .filter((pattern) => !pattern.startsWith('!'))
  .flatMap((pattern) => (pattern.includes('*') ? globFiles(pattern).filter((file) => !excluded.some((glob) => globFiles(glob).includes(file))) : [pattern]))
  .sort()

const chunkName = (chunk) => chunk.replace(/[^a-z0-9]+/gi, '_')
const selected = only ? only.flatMap((part) => chunks.filter((chunk) => chunk.includes(part))) : chunks
for (const chunk of new Set(selected)) {
  const result = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], { stdio: 'inherit', env: { ...process.env, MUTATION_CHUNK: chunk } })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

const DETECTED = new Set(['Killed', 'Timeout'])
const UNDETECTED = new Set(['Survived', 'NoCoverage'])
let detected = 0
let undetected = 0
console.log(`\nmutation score of ${target} (detected / (detected + survived + no coverage)):`)
for (const chunk of chunks) {
  const report = `.stryker/report-${target}-${chunkName(chunk)}.json`
  if (!existsSync(report)) {
    console.log(`  ${chunk}: not run yet`)
    continue
  }
  const files = JSON.parse(readFileSync(report, 'utf8')).files
  let fileDetected = 0
  let fileUndetected = 0
  for (const file of Object.values(files)) {
    for (const mutant of file.mutants) {
      if (DETECTED.has(mutant.status)) fileDetected++
      else if (UNDETECTED.has(mutant.status)) fileUndetected++
    }
  }
  detected += fileDetected
  undetected += fileUndetected
  const total = fileDetected + fileUndetected
  console.log(`  ${chunk}: ${total === 0 ? 'no mutants' : `${((100 * fileDetected) / total).toFixed(2)} % (${fileUndetected} undetected of ${total})`}`)
}
const total = detected + undetected
console.log(`  total: ${total === 0 ? 'no mutants' : `${((100 * detected) / total).toFixed(2)} % (${undetected} undetected of ${total})`}`)
