import 'server-only'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/** This process's children that are drills' sandbox processes (Linux: /proc), which must not outlive a drill or it. */
export function sandboxProcesses(): number[] {
  const tasks = path.join('/proc', String(process.pid), 'task')
  const children = readdirSync(tasks).flatMap((task) => readFileSync(path.join(tasks, task, 'children'), 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbox-child')
    } catch {
      return false
    }
  })
}

/** Whether a process of that pid exists (signal 0 checks without sending). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
