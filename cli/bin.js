#!/usr/bin/env node
// The `mirrorboard` bin (package.json "bin"). It runs the compiled command line (dist/cli/, built by
// `npm run build`), which needs only the production dependencies. In a checkout with the dev dependencies and
// sources edited since that build, it runs the sources through tsx instead, so `npx mirrorboard` never runs
// stale code while developing. Plain CommonJS: nothing here may need a build or a dev dependency.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const compiled = path.join(root, 'dist', 'cli', 'cli', 'main.js')
const stamp = path.join(root, 'dist', 'cli', 'BUILT')

/** The newest modification time of the .ts files under these folders (0 when there are none). */
function newestSource(folders) {
  let newest = 0
  const walk = (dir) => {
    let entries
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs)
    }
  }
  for (const folder of folders) walk(path.join(root, folder))
  return newest
}

function builtAt() {
  try {
    return fs.statSync(stamp).mtimeMs
  } catch {
    return null
  }
}

function tsxRegister() {
  try {
    return require(require.resolve('tsx/cjs/api', { paths: [root] })).register
  } catch {
    return null
  }
}

const built = builtAt()
const register = built === null || newestSource(['cli', 'lib']) > built ? tsxRegister() : null
if (register !== null) {
  register({ tsconfig: path.join(root, 'tsconfig.json') })
  require(path.join(root, 'cli', 'main.ts')).runFromProcess()
} else if (built !== null) {
  require(compiled).runFromProcess()
} else {
  process.stderr.write('mirrorboard: the command line is not built: run `npm run build` (or `node cli/build.mjs`) in ' + root + '\n')
  process.exitCode = 1
}
