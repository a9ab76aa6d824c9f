import 'server-only'
import { constants } from 'node:fs'
import { copyFile, link, mkdir, stat, truncate } from 'node:fs/promises'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { yieldToEventLoop } from '@/server/util/cooperative'
import { LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE } from './log-checkpoints'
import { INDEX_SUFFIX, LOG_SUFFIX, offsetFileName, PRODUCER_SNAPSHOT_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX } from './segment'
import type { LogFileSnapshot } from './types'

/**
 * A copy of a log as it was at its snapshot (a drill's sandbox, server/drills/), in Kafka's layout: sealed
 * segments with their indexes and producer-state snapshots hard-linked (no bytes copied; a later cleaner swap,
 * retention or deletion in the original replaces or unlinks files and leaves the copy's alone), the active
 * segment copied up to the size it had at the snapshot (appends after it are not in the copy), the leader-epoch
 * and log-start checkpoints hard-linked too (both sides replace them by rename, never in place: a link is the
 * version of the moment, as a copy was). No clean-shutdown marker in the files: opened alone, the copy opens as after
 * a crash, so recovery scans its last segment, rebuilds that segment's indexes, re-derives the epochs of its
 * batches and replays producer state from the newest snapshot, as a broker restarting on these files would.
 * The snapshot's close state (LogFileSnapshot.closeState) handed to its first open instead makes it open as
 * after a clean close at the snapshot: what a drill's sandbox does (server/drills/sandbox.ts).
 *
 * Each copy is a plan of file steps (copyPlan), run either through the thread pool one await at a time (copyLog)
 * or, for many logs at once, synchronously on a worker thread of its own (copyLogs): a drill's 2,000 copies are
 * ~16,000 small file-system calls, which in the thread pool queued behind production's fsyncs (seconds of RTO at
 * load) and cost the event loop a promise each.
 */

export interface LogCopyOutcome {
  readonly filesLinked: number
  readonly bytesCopied: number
}

const SEGMENT_FILES = [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, PRODUCER_SNAPSHOT_SUFFIX] as const

/**
 * One file of a copy. `prefix`: the first `bytes` bytes of `from` (copied by the kernel, cut back to the
 * snapshot's size: appends after it are not in the copy; not synced — a copy is only ever opened by the process
 * that made it, a drill's sandbox is removed at the next start after a crash). `link`: a hard link, or a copy
 * where the file system will not link (another device, no link support), skipped when `from` is gone.
 */
export type CopyStep = { kind: 'prefix'; from: string; to: string; bytes: number } | { kind: 'link'; from: string; to: string }

export interface CopyPlan {
  readonly dir: string
  readonly steps: readonly CopyStep[]
}

export function copyPlan(snapshot: LogFileSnapshot, targetDir: string): CopyPlan {
  const steps: CopyStep[] = []
  // Each directory normalized once, then its files' paths by concatenation: path.join per file (~16,000 for a
  // drill's 2,000 logs) was 45 ms of the copy's one synchronous turn on the event loop (npm run bench -- drill).
  const fromDir = path.resolve(snapshot.dir) + path.sep
  const toDir = path.resolve(targetDir) + path.sep
  const from = (name: string) => fromDir + name
  const to = (name: string) => toDir + name
  for (const segment of snapshot.segments) {
    if (segment.active) {
      const log = offsetFileName(segment.baseOffset, LOG_SUFFIX)
      steps.push({ kind: 'prefix', from: from(log), to: to(log), bytes: segment.bytes })
      // The snapshot written at the roll that opened this segment: recovery replays from it.
      const producerSnapshot = offsetFileName(segment.baseOffset, PRODUCER_SNAPSHOT_SUFFIX)
      steps.push({ kind: 'link', from: from(producerSnapshot), to: to(producerSnapshot) })
      continue
    }
    for (const suffix of SEGMENT_FILES) {
      const name = offsetFileName(segment.baseOffset, suffix)
      steps.push({ kind: 'link', from: from(name), to: to(name) })
    }
  }
  // Linked, not copied: a checkpoint is only ever replaced (LogCheckpoints: a temp file renamed over it), in the
  // original and in the copy alike, so neither side's next version reaches the other, and a link is one system
  // call where a copy and its size were ~8 (two of a drill's ~13 steps per log; npm run bench -- drill).
  for (const checkpoint of [LEADER_EPOCH_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE]) steps.push({ kind: 'link', from: from(checkpoint), to: to(checkpoint) })
  return { dir: targetDir, steps }
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT'
const cannotLink = (error: unknown) => ['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')

function truncatedMeanwhile(from: string, copied: number, bytes: number): Error {
  return new Error(`${from} ended at byte ${copied}, before the ${bytes} bytes of the snapshot: it was truncated meanwhile`)
}

/** Copies one log through the thread pool (copyPlan's steps in order). */
export async function copyLog(snapshot: LogFileSnapshot, targetDir: string): Promise<LogCopyOutcome> {
  const plan = copyPlan(snapshot, targetDir)
  await mkdir(plan.dir, { recursive: true })
  let filesLinked = 0
  let bytesCopied = 0
  for (const step of plan.steps) {
    try {
      if (step.kind === 'prefix') {
        await copyFile(step.from, step.to, constants.COPYFILE_EXCL)
        const copied = (await stat(step.to)).size
        if (copied < step.bytes) throw truncatedMeanwhile(step.from, copied, step.bytes)
        if (copied > step.bytes) await truncate(step.to, step.bytes)
        bytesCopied += step.bytes
      } else {
        try {
          await link(step.from, step.to)
          filesLinked += 1
        } catch (error) {
          if (!cannotLink(error)) throw error
          await copyFile(step.from, step.to)
          bytesCopied += (await stat(step.to)).size
        }
      }
    } catch (error) {
      if (step.kind !== 'prefix' && isMissing(error)) continue
      throw error
    }
  }
  return { filesLinked, bytesCopied }
}

/**
 * The copy worker's nice value: its copies (hard links, the active segments' bytes) ran at the main thread's
 * priority, and at a drill's start the server's event loop waited for a core behind them (the drill bench's stall
 * meter: turns of 40–130 ms waiting at the copy's start, session 28).
 */
export const COPY_WORKER_NICE = 10

/**
 * The worker's side of LogCopies, as source (a worker evaluated from a string loads no module of the app, under
 * tsx or a bundler alike): plans arrive in messages (`{ plans }`), each plan's steps taken with synchronous calls,
 * as copyLog takes them, as its message arrives; `{ end: true }` asks for the outcomes; the first plan's failure,
 * by its index among all, is posted at once and the rest ignored.
 */
const WORKER_SOURCE = `
const fs = require('node:fs')
const { parentPort } = require('node:worker_threads')
// On Linux a nice value is a thread's own (setpriority on the calling thread): this one's copies give way to the
// event loop's thread, as the drill's sandbox process does (nice 10 inside the RTO). Elsewhere it is the
// process's, which must not be lowered: skipped there.
if (process.platform === 'linux') {
  try {
    require('node:os').setPriority(${COPY_WORKER_NICE})
  } catch {}
}
const isMissing = (error) => error && error.code === 'ENOENT'
const cannotLink = (error) => error && ['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK'].includes(error.code)
const outcomes = []
let failed = false
parentPort.on('message', (message) => {
  if (failed) return
  if (message.end) {
    parentPort.postMessage({ outcomes })
    return
  }
  for (const plan of message.plans) {
    const index = outcomes.length
    let filesLinked = 0
    let bytesCopied = 0
    try {
      fs.mkdirSync(plan.dir, { recursive: true })
      for (const step of plan.steps) {
        try {
          if (step.kind === 'prefix') {
            fs.copyFileSync(step.from, step.to, fs.constants.COPYFILE_EXCL)
            const copied = fs.statSync(step.to).size
            if (copied < step.bytes) throw new Error(step.from + ' ended at byte ' + copied + ', before the ' + step.bytes + ' bytes of the snapshot: it was truncated meanwhile')
            if (copied > step.bytes) fs.truncateSync(step.to, step.bytes)
            bytesCopied += step.bytes
          } else {
            try {
              fs.linkSync(step.from, step.to)
              filesLinked += 1
            } catch (error) {
              if (!cannotLink(error)) throw error
              fs.copyFileSync(step.from, step.to)
              bytesCopied += fs.statSync(step.to).size
            }
          }
        } catch (error) {
          if (step.kind !== 'prefix' && isMissing(error)) continue
          throw error
        }
      }
    } catch (error) {
      failed = true
      parentPort.postMessage({ failed: index, message: error && error.message ? error.message : String(error), code: error && error.code })
      return
    }
    outcomes.push({ filesLinked, bytesCopied })
  }
})
`

type WorkerAnswer = { outcomes: LogCopyOutcome[] } | { failed: number; message: string; code?: string }

/**
 * Many logs copied (copyPlan's steps) synchronously on a worker thread of its own: neither the thread pool, which
 * production's fsyncs share, nor the event loop pays a call of it. Plans are added as they are made — the worker
 * copies one batch while the caller makes the next — and each `add` is one message, cloned on the caller's
 * thread: a drill's 2,000 plans (~13 steps of two paths each a log) in one message were a 32 ms turn of the
 * server's event loop (a CPU profile of a drill, session 23). `finish` resolves with the outcomes in the order
 * the plans were added, or rejects with the first failure (the copies made before it stay; the caller removes
 * the target); `abort` stops the worker when the caller gives up.
 */
export class LogCopies {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true })
  private readonly dirs: string[] = []
  private readonly answered: Promise<LogCopyOutcome[]>
  private settled = false

  constructor() {
    this.answered = new Promise((resolve, reject) => {
      const settle = (then: () => void) => {
        if (this.settled) return
        this.settled = true
        // It waits for messages until stopped.
        void this.worker.terminate()
        then()
      }
      this.worker.once('message', (message: WorkerAnswer) => {
        if ('outcomes' in message) settle(() => resolve(message.outcomes))
        else settle(() => reject(Object.assign(new Error(`the copy of ${this.dirs[message.failed]} failed: ${message.message}`), { code: message.code })))
      })
      this.worker.once('error', (error) => settle(() => reject(error)))
      this.worker.once('exit', (code) => settle(() => reject(new Error(`the log copy worker exited with code ${code} before answering`))))
    })
    // A failure before `finish` is reported by `finish`.
    this.answered.catch(() => undefined)
  }

  add(plans: readonly CopyPlan[]): void {
    if (this.settled || plans.length === 0) return
    for (const plan of plans) this.dirs.push(plan.dir)
    this.worker.postMessage({ plans })
  }

  finish(): Promise<LogCopyOutcome[]> {
    if (!this.settled) this.worker.postMessage({ end: true })
    return this.answered
  }

  abort(): void {
    if (this.settled) return
    this.settled = true
    void this.worker.terminate()
  }
}

/** Plans per message in copyLogs: each message a turn of the event loop of its own. */
export const PLANS_PER_MESSAGE = 128

/** Copies many logs at once (LogCopies), PLANS_PER_MESSAGE plans a turn of the event loop. */
export async function copyLogs(plans: readonly CopyPlan[]): Promise<LogCopyOutcome[]> {
  if (plans.length === 0) return []
  const copies = new LogCopies()
  for (let sent = 0; sent < plans.length; sent += PLANS_PER_MESSAGE) {
    if (sent > 0) await yieldToEventLoop()
    copies.add(plans.slice(sent, sent + PLANS_PER_MESSAGE))
  }
  return copies.finish()
}
