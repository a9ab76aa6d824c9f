import 'server-only'
import { Worker } from 'node:worker_threads'

/**
 * Removes a directory tree on a worker thread of its own, with synchronous calls (`fs.rmSync`); a tree already gone
 * is fine. `fs.promises.rm` of a drill's sandbox (2,000 logs, ~16,000 files) queued two calls per file in the
 * thread pool, where production's fsyncs wait, and their completions came back to the event loop in bursts:
 * 69–111 ms of main-thread CPU in one turn (npm run bench -- drill, session 19), the drill's longest stall.
 */

/** The worker, as source (a worker evaluated from a string loads no module of the app, under tsx or a bundler alike). */
const WORKER_SOURCE = `
const fs = require('node:fs')
const { parentPort, workerData } = require('node:worker_threads')
try {
  fs.rmSync(workerData, { recursive: true, force: true, maxRetries: 3 })
  parentPort.postMessage({ ok: true })
} catch (error) {
  parentPort.postMessage({ ok: false, message: error && error.message ? error.message : String(error), code: error && error.code })
}
`

export function removeTree(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: dir })
    let settled = false
    worker.once('message', (message: { ok: true } | { ok: false; message: string; code?: string }) => {
      settled = true
      if (message.ok) resolve()
      else reject(Object.assign(new Error(`${dir} could not be removed: ${message.message}`), { code: message.code }))
    })
    worker.once('error', (error) => {
      settled = true
      reject(error)
    })
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the removal of ${dir} stopped with code ${code} before answering`))
    })
  })
}
