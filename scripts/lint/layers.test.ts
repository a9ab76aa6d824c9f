import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * `npm run lint` checks the layers of docs/architecture.md with dependency-cruiser (.dependency-cruiser.cjs).
 * Here the same command line runs over a small tree laid out like the repository: clean, it passes; with
 * deliberate breaks, spelled the ways per-import patterns missed (a deep relative path, the alias, a type-only
 * import, a bare Node module name), it fails naming each rule.
 */

const run = promisify(execFile)
const repo = path.resolve(__dirname, '..', '..')
const depcruise = path.join(repo, 'node_modules', '.bin', 'depcruise')

/** The repository's lint:layers command, its binary and config taken from the repository. */
async function lintLayers(cwd: string): Promise<{ code: number; output: string }> {
  const scripts = (JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  const [command, ...args] = scripts['lint:layers']!.split(/\s+/)
  expect(command).toBe('depcruise')
  const resolved = args.map((arg) => (arg === '.dependency-cruiser.cjs' ? path.join(repo, arg) : arg))
  try {
    const { stdout, stderr } = await run(depcruise, resolved, { cwd })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

/** A tree with one module in each layer, each importing only what its layer may. */
const CLEAN: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@/*': ['./*'] }, module: 'esnext', moduleResolution: 'bundler' } }),
  'instrumentation.ts': "export {}\n",
  'instrumentation-client.ts': "export {}\n",
  'lib/mirror/states.ts': "export const STATES = ['MIRRORING'] as const\n",
  'lib/ui/state-style.ts': "import { STATES } from '../mirror/states'\nexport const labels = STATES.map((state) => state.toLowerCase())\n",
  'components/badge.tsx': "import { labels } from '@/lib/ui/state-style'\nexport const Badge = () => labels[0]\n",
  'server/util/clock.ts': "export const now = () => 0\n",
  'server/storage/partition-log.ts': "import { now } from '../util/clock'\nexport const append = () => now()\n",
  'server/cluster/ports.ts': "export interface SourceCluster { name: string }\n",
  'server/cluster/embedded/embedded-cluster.ts': "import { append } from '../../storage/partition-log'\nimport type { SourceCluster } from '../ports'\nexport const cluster: SourceCluster = { name: String(append()) }\n",
  'server/cluster/fakes/fake-source.ts': "import type { SourceCluster } from '../ports'\nexport const fake: SourceCluster = { name: 'fake' }\n",
  'server/engine/engine.ts': "import type { SourceCluster } from '@/server/cluster/ports'\nimport { STATES } from '@/lib/mirror/states'\nexport const engine = (source: SourceCluster) => `${source.name} ${STATES[0]}`\n",
  'server/engine/testing/harness.ts': "import { fake } from '@/server/cluster/fakes/fake-source'\nimport { engine } from '../engine'\nexport const harness = () => engine(fake)\n",
  'server/engine/engine.test.ts': "import { harness } from './testing/harness'\nimport { handler } from '@/app/api/route'\nexport const checked = [harness(), handler()]\n",
  'server/demo/demo.ts': "import { engine } from '../engine/engine'\nimport { cluster } from '../cluster/embedded/embedded-cluster'\nexport const demo = () => engine(cluster)\n",
  'server/api/mirror-api.ts': "import { engine } from '../engine/engine'\nimport { cluster } from '../cluster/embedded/embedded-cluster'\nexport const mirrorApi = () => engine(cluster)\n",
  'server/http/route.ts': "import { mirrorApi } from '../api/mirror-api'\nexport const route = () => mirrorApi()\n",
  'server/pages/lookup.ts': "import { mirrorApi } from '@/server/api/mirror-api'\nexport const lookup = () => mirrorApi()\n",
  'server/runtime.ts': "import { demo } from './demo/demo'\nimport { engine } from './engine/engine'\nexport const runtime = { demo, engine }\n",
  'app/api/route.ts': "import { route } from '@/server/http/route'\nimport { runtime } from '@/server/runtime'\nexport const handler = () => [route(), runtime]\n",
  'app/page.tsx': "import { Badge } from '@/components/badge'\nimport { lookup } from '@/server/pages/lookup'\nexport default function Page() { return [Badge(), lookup()] }\n",
  'scripts/tool.ts': "import { runtime } from '@/server/runtime'\nexport const tool = runtime\n",
  'e2e/journey.spec.ts': "export const journey = 1\n",
  'cli/main.ts': "import { STATES } from '@/lib/mirror/states'\nexport const main = () => STATES[0]\n",
}

/** Each break, the rule that must refuse it, and the import as the report names it. */
const BREAKS: Array<{ rule: string; file: string; source: string; edge: string }> = [
  { rule: 'lib-imports-only-lib', file: 'lib/ui/deep/deeper/view.ts', source: "import { route } from '../../../../server/http/route'\nexport const view = route\n", edge: 'lib/ui/deep/deeper/view.ts → server/http/route.ts' },
  { rule: 'lib-imports-only-lib', file: 'lib/ui/typed.ts', source: "import type { SourceCluster } from '@/server/cluster/ports'\nexport type Typed = SourceCluster\n", edge: 'lib/ui/typed.ts → server/cluster/ports.ts' },
  { rule: 'lib-does-no-io', file: 'lib/mirror/reads-disk.ts', source: "import { readFileSync } from 'fs'\nexport const read = readFileSync\n", edge: 'lib/mirror/reads-disk.ts → fs' },
  { rule: 'components-never-server', file: 'components/engine-view.tsx', source: "import { engine } from '@/server/engine/engine'\nexport const View = engine\n", edge: 'components/engine-view.tsx → server/engine/engine.ts' },
  { rule: 'app-reaches-server-through-api', file: 'app/mirrors/page.tsx', source: "import { engine } from '@/server/engine/engine'\nexport default engine\n", edge: 'app/mirrors/page.tsx → server/engine/engine.ts' },
  { rule: 'below-api-never-up', file: 'server/engine/commands/deep/command.ts', source: "import { route } from '../../../../server/http/route'\nexport const command = route\n", edge: 'server/engine/commands/deep/command.ts → server/http/route.ts' },
  { rule: 'below-api-never-up', file: 'server/demo/banner.ts', source: "import { mirrorApi } from '@/server/api/mirror-api'\nexport const banner = mirrorApi\n", edge: 'server/demo/banner.ts → server/api/mirror-api.ts' },
  { rule: 'engine-through-ports', file: 'server/engine/fetcher.ts', source: "import { cluster } from '../cluster/embedded/embedded-cluster'\nexport const fetcher = cluster\n", edge: 'server/engine/fetcher.ts → server/cluster/embedded/embedded-cluster.ts' },
  { rule: 'clusters-never-call-up', file: 'server/cluster/embedded/notify.ts', source: "import type { engine } from '@/server/engine/engine'\nexport type Notify = typeof engine\n", edge: 'server/cluster/embedded/notify.ts → server/engine/engine.ts' },
  { rule: 'storage-is-the-floor', file: 'server/storage/cleaner.ts', source: "import { engine } from '../engine/engine'\nexport const cleaner = engine\n", edge: 'server/storage/cleaner.ts → server/engine/engine.ts' },
  { rule: 'http-through-api', file: 'server/http/conditional.ts', source: "import { engine } from '../engine/engine'\nexport const conditional = engine\n", edge: 'server/http/conditional.ts → server/engine/engine.ts' },
  { rule: 'pages-through-api', file: 'server/pages/failover.ts', source: "import { engine } from '../engine/engine'\nexport const failover = engine\n", edge: 'server/pages/failover.ts → server/engine/engine.ts' },
  { rule: 'production-never-test-code', file: 'server/engine/queries.ts', source: "import { harness } from './testing/harness'\nexport const queries = harness\n", edge: 'server/engine/queries.ts → server/engine/testing/harness.ts' },
  { rule: 'cli-over-http', file: 'cli/engine-call.ts', source: "import { engine } from '../server/engine/engine'\nexport const call = engine\n", edge: 'cli/engine-call.ts → server/engine/engine.ts' },
  { rule: 'no-cycles', file: 'lib/mirror/ping.ts', source: "import { pong } from './pong'\nexport const ping = () => pong\n", edge: 'lib/mirror/ping.ts →' },
]
const CYCLE_PARTNER = { 'lib/mirror/pong.ts': "import type { ping } from './ping'\nexport const pong: typeof ping | null = null\n" }

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true })
    await writeFile(path.join(root, file), source)
  }
}

describe('npm run lint: the layer rules (dependency-cruiser)', () => {
  let clean: string
  let broken: string

  beforeAll(async () => {
    clean = await mkdtemp(path.join(tmpdir(), 'layers-clean-'))
    broken = await mkdtemp(path.join(tmpdir(), 'layers-broken-'))
    await writeTree(clean, CLEAN)
    await writeTree(broken, { ...CLEAN, ...Object.fromEntries(BREAKS.map((entry) => [entry.file, entry.source])), ...CYCLE_PARTNER })
  })

  afterAll(async () => {
    await rm(clean, { recursive: true, force: true })
    await rm(broken, { recursive: true, force: true })
  })

  it('passes a tree whose every import goes down the layers (tests may reach any layer)', async () => {
    const { code, output } = await lintLayers(clean)
    expect(output).not.toMatch(/error/)
    expect(code).toBe(0)
  })

  it('fails on each deliberate break, naming its rule and the import, however the path is spelled', async () => {
    const { code, output } = await lintLayers(broken)
    expect(code).not.toBe(0)
    const reported = output.replace(/\s*\n\s*/g, ' ')
    for (const entry of BREAKS) expect(reported, `${entry.rule}: ${entry.edge}`).toContain(`error ${entry.rule}: ${entry.edge}`)
  })
})
