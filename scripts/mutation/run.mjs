// `npm run mutation [-- mirror|engine] [extra stryker args]`: runs StrykerJS on one target and prints its score.
import { spawnSync } from 'node:child_process'

const [first, ...rest] = process.argv.slice(2)
const target = first && !first.startsWith('-') ? first : 'mirror'
const args = first && !first.startsWith('-') ? rest : process.argv.slice(2)
const result = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...args], { stdio: 'inherit', env: { ...process.env, MUTATION_TARGET: target } })
process.exit(result.status ?? 1)
