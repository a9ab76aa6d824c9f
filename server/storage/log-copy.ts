import 'server-only'
import { constants } from 'node:fs'
import { copyFile, link, mkdir, stat, truncate } from 'node:fs/promises'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
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
 * The worker's side of copyLogs, as source (a worker evaluated from a string loads no module of the app, under
 * tsx or a bundler alike): the plans arrive in messages of up to PLANS_PER_MESSAGE, `workerData.count` in all;
 * each plan's steps with synchronous calls, as copyLog takes them, as its message arrives; the outcomes, or the
 * first plan's failure by its index among all, posted back.
 */
const WORKER_SOURCE = `
const fs = require('node:fs')
const { parentPort, workerData } = require('node:worker_threads')
const isMissing = (error) => error && error.code === 'ENOENT'
const cannotLink = (error) => error && ['EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK'].includes(error.code)
const outcomes = []
let failed = false
parentPort.on('message', (plans) => {
  if (failed) return
  for (const plan of plans) {
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
  if (outcomes.length === workerData.count) parentPort.postMessage({ outcomes })
})
`

/**
 * Plans per message to the copy's worker. A message is cloned on the sending thread: a drill's 2,000 plans (~13
 * steps of two paths each a log) as the worker's `workerData` were one 32 ms turn of the server's event loop
 * (a CPU profile of a drill, session 23); sent 128 at a time, each message is a turn of its own, and the worker
 * copies each batch while the next is being sent.
 */
export const PLANS_PER_MESSAGE = 128

/**
 * Copies many logs (copyPlan's steps), synchronously on a worker thread of its own: neither the thread pool,
 * which production's fsyncs share, nor the event loop pays a call of it. Outcomes in the order of `plans`;
 * rejects with the first failure (the copies made before it stay; the caller removes the target).
 */
export function copyLogs(plans: readonly CopyPlan[]): Promise<LogCopyOutcome[]> {
  if (plans.length === 0) return Promise.resolve([])
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { count: plans.length } })
    let settled = false
    const settle = (then: () => void) => {
      settled = true
      // It waits for messages until told to stop.
      void worker.terminate()
      then()
    }
    worker.once('message', (message: { outcomes: LogCopyOutcome[] } | { failed: number; message: string; code?: string }) => {
      if ('outcomes' in message) settle(() => resolve(message.outcomes))
      else settle(() => reject(Object.assign(new Error(`the copy of ${plans[message.failed]!.dir} failed: ${message.message}`), { code: message.code })))
    })
    worker.once('error', (error) => {
      if (!settled) settle(() => reject(error))
    })
    worker.once('exit', (code) => {
      if (!settled) {
        settled = true
        reject(new Error(`the log copy worker exited with code ${code} before answering`))
      }
    })
    let sent = 0
    const sendNext = () => {
      if (settled) return
      worker.postMessage(plans.slice(sent, sent + PLANS_PER_MESSAGE))
      sent += PLANS_PER_MESSAGE
      if (sent < plans.length) setImmediate(sendNext)
    }
    sendNext()
  })
}
