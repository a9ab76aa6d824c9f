// The layer rules of docs/architecture.md ("Layers"), checked on resolved modules by `npm run lint`: an import is
// judged by the file it reaches, however its path is spelled (alias, any depth of ../, a re-export), and so are
// type-only imports. Tests (*.test.ts, *.spec.ts) may reach any layer to drive it end to end; the helpers under a
// testing/ folder are held to their folder's rules (the engine's may also use the port fakes and the embedded
// cluster). scripts/lint/layers.test.ts breaks each rule on purpose and checks that this file refuses it.

const TEST = '\\.(test|spec)\\.tsx?$'
const TESTING = '(^|/)testing/'
const NOT_TEST = [TEST]
const NOT_TEST_NOR_TESTING = [TEST, TESTING]

/** A folder of server/ as a path prefix; `server/runtime.ts` is the composition root. */
const server = (...folders) => `^server/(${folders.join('|')})/`
const RUNTIME = '^server/runtime\\.ts$'

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone. Type-only imports count too.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },

    // PURE CODE

    {
      name: 'lib-imports-only-lib',
      comment: 'lib/ is the pure core (mirroring rules, API contract, view logic): it imports nothing of server/, components/, app/ or the tools.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(server|components|app|scripts|e2e)/' },
    },
    {
      name: 'lib-does-no-io',
      comment: 'lib/ does no I/O: Node code belongs in server/.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'lib-is-framework-free',
      comment: 'lib/ is framework-free domain code: no React, no Next.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^node_modules/(react|react-dom|next|server-only)/' },
    },

    // THE BROWSER SIDE

    {
      name: 'components-never-server',
      comment: 'Components reach the server only over HTTP, through components/data/ and the endpoint catalog.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^(server|app|scripts|e2e)/' },
    },
    {
      name: 'server-never-ui',
      comment: 'Server code knows no page or component; what both need lives in lib/.',
      severity: 'error',
      from: { path: '^server/', pathNot: NOT_TEST },
      to: { path: '^(app|components)/' },
    },
    {
      name: 'app-reaches-server-through-api',
      comment: 'Routes and pages reach the server through server/api/, server/http/, server/pages/ and the composition root only.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^server/', pathNot: [server('api', 'http', 'pages'), RUNTIME] },
    },

    // THE SERVER'S LAYERS, TOP DOWN: http → api → overview, demo → engine → cluster ports; clusters → storage

    {
      name: 'pages-through-api',
      comment: 'Page loaders read what the API routes answer, through server/api/.',
      severity: 'error',
      from: { path: '^server/pages/', pathNot: NOT_TEST },
      to: { path: server('engine', 'cluster', 'storage', 'demo', 'overview', 'audit', 'verification', 'drills') },
    },
    {
      name: 'http-through-api',
      comment: 'server/http/ is plumbing (auth, parsing, errors, audit, events): it reaches the engine and clusters only through server/api/ and the composition root.',
      severity: 'error',
      from: { path: '^server/http/', pathNot: NOT_TEST },
      to: { path: server('engine', 'cluster', 'storage', 'demo', 'overview', 'pages', 'verification', 'drills') },
    },
    {
      name: 'api-below-http',
      comment: 'server/api/ maps engine and cluster shapes to the API; it knows neither HTTP nor pages nor the composition root.',
      severity: 'error',
      from: { path: '^server/api/', pathNot: NOT_TEST },
      to: { path: [server('http', 'pages'), RUNTIME] },
    },
    {
      name: 'below-api-never-up',
      comment: 'The engine, clusters, storage, audit, demo, overview, verifications, drills and the shared helpers never import server/http/, server/api/, server/pages/ or the composition root.',
      severity: 'error',
      from: { path: server('engine', 'cluster', 'storage', 'audit', 'demo', 'overview', 'observability', 'util', 'verification', 'drills'), pathNot: NOT_TEST },
      to: { path: [server('http', 'api', 'pages'), RUNTIME] },
    },
    {
      name: 'overview-reads-the-engine',
      comment: 'server/overview/ reads the engine for the overview page; it drives nothing.',
      severity: 'error',
      from: { path: '^server/overview/', pathNot: NOT_TEST },
      to: { path: server('demo', 'cluster', 'storage', 'audit') },
    },
    {
      name: 'rehearsals-beside-the-engine',
      comment: 'Verifications and drills read mirrors through the engine and clusters through their ports (a drill builds its sandbox cluster); they drive neither the demo nor the overview nor the audit log.',
      severity: 'error',
      from: { path: server('verification', 'drills'), pathNot: NOT_TEST },
      to: { path: server('demo', 'overview', 'audit') },
    },
    {
      name: 'engine-through-ports',
      comment: 'The engine reaches clusters only through server/cluster/ports.ts; the composition root picks the implementation.',
      severity: 'error',
      from: { path: '^server/engine/', pathNot: NOT_TEST_NOR_TESTING },
      to: { path: server('cluster', 'storage', 'demo', 'overview', 'audit'), pathNot: '^server/cluster/ports\\.ts$' },
    },
    {
      name: 'engine-testing-through-ports-or-fakes',
      comment: "The engine's test helpers may also use the port fakes and the embedded cluster, nothing else of clusters.",
      severity: 'error',
      from: { path: '^server/engine/testing/' },
      to: { path: server('cluster', 'storage', 'demo', 'overview', 'audit'), pathNot: ['^server/cluster/ports\\.ts$', server('cluster/fakes', 'cluster/embedded', 'storage/testing')] },
    },
    {
      name: 'clusters-never-call-up',
      comment: 'Clusters know neither the engine nor the demo: the engine reaches them through the ports, never the other way.',
      severity: 'error',
      from: { path: '^server/cluster/', pathNot: NOT_TEST },
      to: { path: server('engine', 'demo', 'overview', 'audit') },
    },
    {
      name: 'storage-is-the-floor',
      comment: 'Storage (partition logs on disk) imports nothing of the server above it.',
      severity: 'error',
      from: { path: '^server/storage/', pathNot: NOT_TEST },
      to: { path: server('engine', 'cluster', 'demo', 'overview', 'audit') },
    },
    {
      name: 'audit-stands-alone',
      comment: 'The audit log is written by server/http/ and read through the API; it imports only the shared helpers.',
      severity: 'error',
      from: { path: '^server/audit/', pathNot: NOT_TEST },
      to: { path: server('engine', 'cluster', 'storage', 'demo', 'overview') },
    },
    {
      name: 'helpers-are-leaves',
      comment: 'server/util/ and server/observability/ serve every layer, so they import none.',
      severity: 'error',
      from: { path: server('util', 'observability'), pathNot: NOT_TEST },
      to: { path: '^server/', pathNot: server('util', 'observability') },
    },

    // THE COMMAND LINE

    {
      name: 'cli-over-http',
      comment: 'The command line (cli/) is a client of the HTTP API like the browser: it uses the endpoint catalog and pure code of lib/, never the server, the UI or the tools.',
      severity: 'error',
      // cli/e2e/ is the command line's suite, a test that may use the tools (the production server's launcher).
      from: { path: '^cli/', pathNot: [...NOT_TEST, '^cli/e2e/'] },
      to: { path: '^(server|components|app|scripts|e2e)/' },
    },

    // TESTS AND TOOLS

    {
      name: 'production-never-test-code',
      comment: 'Production code never imports tests or test helpers (testing/ folders, port fakes).',
      severity: 'error',
      from: { path: '^(app|components|lib|server|cli)/', pathNot: [TEST, TESTING, '^server/cluster/fakes/', '^cli/e2e/'] },
      to: { path: [TEST, TESTING, '^server/cluster/fakes/'] },
    },
    {
      name: 'production-never-tools',
      comment: 'scripts/ and e2e/ stand above the product; the product never imports them (test helpers may use the Kafka tools).',
      severity: 'error',
      from: { path: '^(app|components|lib|server|cli)/', pathNot: [...NOT_TEST_NOR_TESTING, '^cli/e2e/'] },
      to: { path: '^(scripts|e2e)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.next|dist|\\.kafka|data|test-results|playwright-report|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.mts', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
