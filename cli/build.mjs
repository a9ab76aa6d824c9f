// Builds the command line: tsc with tsconfig.cli.json (cli/main.ts and the lib/ modules it imports, to
// dist/cli/), with one transform tsc lacks: every '@/…' import becomes a path relative to the importing file,
// so node resolves the compiled modules without the alias. Plain JavaScript on purpose: it runs where only the
// production dependencies are installed (`npm run build` after `npm ci --omit=dev`), with typescript among them.
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Another configuration as the argument: `node cli/build.mjs tsconfig.sandbox.json` builds a drill's sandbox process.
const configPath = path.join(root, process.argv[2] ?? 'tsconfig.cli.json')
const read = ts.readConfigFile(configPath, ts.sys.readFile)
if (read.error) fail([read.error])
const config = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath)
if (config.errors.length > 0) fail(config.errors)
const outDir = config.options.outDir
rmSync(outDir, { recursive: true, force: true })

/** `@/lib/api/client` seen from `<root>/cli/api.ts` → `../lib/api/client`. */
function relative(fileName, specifier) {
  if (!specifier.startsWith('@/')) return null
  const target = path.join(root, specifier.slice(2))
  let spelled = path.relative(path.dirname(fileName), target).split(path.sep).join('/')
  if (!spelled.startsWith('.')) spelled = `./${spelled}`
  return spelled
}

const aliasTransformer = (context) => (sourceFile) => {
  const { factory } = context
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const rewritten = relative(sourceFile.fileName, node.moduleSpecifier.text)
      if (rewritten !== null) {
        return ts.isImportDeclaration(node)
          ? factory.updateImportDeclaration(node, node.modifiers, node.importClause, factory.createStringLiteral(rewritten), node.attributes)
          : factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, factory.createStringLiteral(rewritten), node.attributes)
      }
    }
    return ts.visitEachChild(node, visit, context)
  }
  return ts.visitNode(sourceFile, visit)
}

const program = ts.createProgram({ rootNames: config.fileNames, options: config.options })
const diagnostics = [...ts.getPreEmitDiagnostics(program)]
const emitted = program.emit(undefined, undefined, undefined, false, { before: [aliasTransformer] })
diagnostics.push(...emitted.diagnostics)
if (diagnostics.length > 0) fail(diagnostics)
// Stamped so the bin can tell a build older than its sources (cli/bin.js).
writeFileSync(path.join(outDir, 'BUILT'), `${new Date().toISOString()}\n`)

function fail(problems) {
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' }
  process.stderr.write(ts.formatDiagnostics(problems, host))
  process.exit(1)
}
