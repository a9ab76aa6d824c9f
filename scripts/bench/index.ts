// `npm run bench`: prints figures with ratios against baselines measured in the same run. Not a test.
import { formatResult, type BenchResult } from './result'
import { benchApi, hasProductionBuild } from './api'
import { benchEngine } from './engine'
import { benchEngineFlap } from './engine-flap'
import { benchEngineScale } from './engine-scale'
import { benchKafka } from './kafka'
import { benchMetrics } from './metrics'
import { benchStorage } from './storage'
import { benchStorageCompaction } from './storage-compaction'
import { benchUiFailover } from './ui-failover'
import { benchUiPartition } from './ui-partition'
import { benchUiOverview } from './ui-overview'
import { benchUiMirror } from './ui-mirror'
import { benchDrill } from './drill'
import { benchVerify } from './verify'
import { benchSwitchover } from './switchover'
import { benchHa } from './ha'
import { benchLighthouse } from './lighthouse'

async function ifBuilt(run: () => Promise<BenchResult[]>): Promise<BenchResult[]> {
  if (!hasProductionBuild()) {
    console.log('skipped: no production build (.next/BUILD_ID); run `npx next build` first')
    return []
  }
  return run()
}

async function benchApiIfBuilt(): Promise<BenchResult[]> {
  return ifBuilt(benchApi)
}

const suites: Array<[string, () => Promise<BenchResult[]>]> = [
  ['embedded log storage', benchStorage],
  ['embedded log storage: engine restart before and after __mirror_state compaction', benchStorageCompaction],
  ['mirroring engine', benchEngine],
  ['engine link flap (fakes)', benchEngineFlap],
  ['engine at 10,000 partitions (embedded)', benchEngineScale],
  ['kafka → kafka (test brokers)', benchKafka],
  ['metrics scrape at 10,000 partitions', benchMetrics],
  ['http api', benchApiIfBuilt],
  ['ui partition page', () => ifBuilt(benchUiPartition)],
  ['ui overview', () => ifBuilt(benchUiOverview)],
  ['ui mirror page', () => ifBuilt(benchUiMirror)],
  ['ui failover wizard', () => ifBuilt(benchUiFailover)],
  ['drill of a 2,000-partition mirror under load', benchDrill],
  ['verify: throughput against a raw read of the same segments', benchVerify],
  ['switchover: planned switchovers under load (21 and 2,000 partitions)', benchSwitchover],
  ['ha: takeover after a SIGKILL of the owner (three instances, control cluster)', benchHa],
  ['lighthouse (mobile defaults) against a running production server', benchLighthouse],
]

async function main() {
  const only = process.argv[2]
  for (const [name, run] of suites) {
    if (only && !name.includes(only)) continue
    console.log(`\n## ${name}`)
    for (const result of await run()) console.log(formatResult(result))
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
