import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startedWithServerFlags } from './scavenge'

/**
 * Read from V8 itself, not timed: a child process with `--trace-parallel-scavenge` (a line per scavenger task) and
 * `--trace-gc` (a line per scavenge) allocates enough for dozens of scavenges after fitScavengesToCores ran, and
 * the tasks of its last scavenges are counted (the flag holds for scavenges after it is set, not for those while
 * tsx loaded).
 */
function tasksOfLastScavenges(cores: number | 'not called', last = 10): number[] {
  const module = path.resolve(__dirname, 'scavenge.ts')
  const script = `
const { fitScavengesToCores } = require(${JSON.stringify(module)})
if (process.argv[1] !== 'not called') process.stderr.write(String(fitScavengesToCores(Number(process.argv[1]))))
let keep = []
for (let i = 0; i < 3000000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 200000) keep = [] }
`
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--trace-parallel-scavenge', '--trace-gc', '-e', script, String(cores)], { encoding: 'utf8', maxBuffer: 64 << 20 })
  const tasks: number[] = []
  let current = 0
  for (const line of out.split('\n')) {
    current += line.split('scavenge[').length - 1
    if (/ ms: Scavenge/.test(line)) {
      tasks.push(current)
      current = 0
    }
  }
  expect(tasks.length).toBeGreaterThan(2 * last)
  return tasks.slice(-last)
}

describe('fitScavengesToCores', () => {
  it('on two cores, each scavenge after it runs on the main thread alone', { timeout: 60_000 }, () => {
    expect(tasksOfLastScavenges(2)).toEqual(Array(10).fill(1))
  })

  // The control: without the call (or with cores to spare) V8 splits a scavenge into tasks, so the count above
  // tells the two apart. A host of one core never runs a parallel scavenge.
  it.skipIf(os.availableParallelism() < 2)('leaves V8 parallel scavenges where there are cores for them, and when not called', { timeout: 120_000 }, () => {
    expect(tasksOfLastScavenges(8).some((tasks) => tasks > 1)).toBe(true)
    expect(tasksOfLastScavenges('not called').some((tasks) => tasks > 1)).toBe(true)
  })
})

describe('SERVER_V8_FLAGS', () => {
  const root = path.resolve(__dirname, '../..')

  // The flags are the command line's (V8 asserts when they are set at run time): each way the production server
  // starts must carry them.
  it('are on the command line of npm start and of the demo', () => {
    const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!
    const demo = readFileSync(path.join(root, 'scripts/demo.sh'), 'utf8').split('\n').find((line) => / node .*dist\/main\.js/.test(line))!
    for (const command of [start, demo]) {
      const argv = command.split(/\s+/)
      expect(startedWithServerFlags(argv.slice(argv.indexOf('node') + 1, argv.indexOf('dist/main.js')))).toBe(true)
    }
  })

  it('are told apart in execArgv', () => {
    expect(startedWithServerFlags(['--single-threaded-gc', '--import', 'tsx'])).toBe(true)
    expect(startedWithServerFlags(['--import', 'tsx'])).toBe(false)
  })
})
