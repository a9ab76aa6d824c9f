import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

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
