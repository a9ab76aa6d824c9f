import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

/** Repository root, derived from this file's location so every entry point works from any cwd. */
export const repoRoot: string = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')
/** Gitignored home of the broker jars and the running test clusters. */
export const kafkaHome: string = join(repoRoot, '.kafka')
export const defaultLibDir: string = join(kafkaHome, 'lib')
export const runDir: string = join(kafkaHome, 'run')
export const clustersFile: string = join(runDir, 'clusters.json')
/** The jar `scripts/kafka/fetch.sh` treats as proof of a complete fetch. */
export const kafkaMarkerJar = 'kafka_2.13-4.1.2.jar'
