import { mirrorEndpoints } from '@/lib/api/endpoints'
import { OperationEvent, type Operation } from '@/lib/api/operations'
import { summarizeProgress } from '@/lib/failover/progress'
import { STOPPING_STEPS } from '@/lib/mirror/stopping'
import { applyOperationEvent } from '@/lib/ui/operation-event'
import { clockTime, formatDuration } from '@/lib/ui/format'
import type { Context } from './context'
import { eventData, EventStream } from './event-stream'
import { paint, type Style } from './format'
import type { Io } from './io'
import { SwitchoverPrinter, switchoverOutcome } from './switchover-progress'

/**
 * `--operations --watch ID`, and what a failover does after it is accepted: the operation followed live over the
 * event stream until it ends. Every STOPPING step a partition completes is printed as a line (a partition seen
 * two steps further than before has done the step between too: steps run in order); an operation of more than
 * PER_PARTITION partitions is reported per step instead ("persistPosition ✓ 512/10000"). On a terminal a progress
 * bar is redrawn under the lines; otherwise there are only the lines, for logs. A planned switchover's phases
 * (fence, drain, rollback and why) come first (switchover-progress.ts). Returns the final operation.
 */

const PER_PARTITION = 20
const AGGREGATE_EVERY_MS = 2_000
const BAR_WIDTH = 30

/** The step a partition has done: everything before the one it performs next. */
const stepIndex = (step: string) => Math.max(0, STOPPING_STEPS.indexOf(step as (typeof STOPPING_STEPS)[number]))

export class ProgressPrinter {
  private readonly done = new Map<string, number>()
  private readonly errors = new Map<string, string>()
  /** Partitions whose end state is printed: once, when it has left STOPPING (the step reads done a moment before). */
  private readonly ended = new Set<string>()
  private readonly stepCounts = STOPPING_STEPS.map(() => 0)
  private lastAggregateAt = 0
  private barShown = false
  private readonly switchover: SwitchoverPrinter

  constructor(
    private readonly io: Io,
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly bar: boolean,
  ) {
    this.switchover = new SwitchoverPrinter(style)
  }

  update(operation: Operation): void {
    this.clearBar()
    const now = this.io.now()
    const said = (text: string) => this.line(now, text)
    if (operation.switchover !== undefined) this.switchover.update(operation.switchover, said, 'before')
    const perPartition = operation.partitions.length <= PER_PARTITION
    const reached = STOPPING_STEPS.map(() => 0)
    for (const entry of operation.partitions) {
      const key = `${entry.topic}-${entry.partition}`
      const index = stepIndex(entry.step)
      for (let step = 0; step < index; step++) reached[step]! += 1
      const before = this.done.get(key) ?? 0
      if (perPartition) {
        for (let step = before; step < index; step++) this.line(now, `${key}  ${STOPPING_STEPS[step]} ${paint('✓', 'healthy', this.style)}`)
        if (index === STOPPING_STEPS.length - 1 && entry.state !== 'STOPPING' && !this.ended.has(key)) {
          this.ended.add(key)
          this.line(now, `${key}  ${paint(entry.state, entry.state === 'STOPPED' ? 'done' : 'danger', this.style)}`)
        }
      }
      this.done.set(key, index)
      if (entry.error !== null && this.errors.get(key) !== entry.error) {
        this.errors.set(key, entry.error)
        this.line(now, `${key}  ${paint('error', 'danger', this.style)} at ${entry.step}: ${entry.error}`)
      }
    }
    if (!perPartition) this.aggregate(now, reached, operation.partitions.length, operation.status !== 'running')
    if (operation.switchover !== undefined) this.switchover.update(operation.switchover, said, 'after')
    this.drawBar(operation, now)
  }

  /** Per step, how many partitions have done it: when it changed, at most every AGGREGATE_EVERY_MS, and when a step is complete. */
  private aggregate(now: number, reached: number[], total: number, final: boolean): void {
    const due = final || now - this.lastAggregateAt >= AGGREGATE_EVERY_MS
    reached.slice(0, -1).forEach((count, step) => {
      const before = this.stepCounts[step] ?? 0
      if (count === before || (!due && count < total)) return
      this.stepCounts[step] = count
      this.line(now, `${STOPPING_STEPS[step]} ${count === total ? paint('✓', 'healthy', this.style) : '…'} ${count}/${total} partitions`)
    })
    if (due) this.lastAggregateAt = now
  }

  finish(operation: Operation): void {
    this.clearBar()
    const now = operation.finishedAt ?? this.io.now()
    const took = formatDuration(now - operation.startedAt)
    const stopped = operation.partitions.filter((entry) => entry.state === 'STOPPED').length
    const total = operation.partitions.length
    const outcome = operation.switchover === undefined || operation.switchover.phase === undefined ? '' : switchoverOutcome(operation.switchover)
    const said = outcome === '' ? '' : `; ${outcome}`
    if (operation.status === 'rolledBack' || operation.switchover?.phase === 'rolledBack') {
      const why = operation.switchover?.phase === 'rolledBack' ? outcome : `${operation.switchover?.reason ?? 'no reason recorded'}; nothing lost, the mirror mirrors as before`
      this.write(`Operation ${operation.id} ${paint('rolled back', 'paused', this.style)} after ${took}: ${why}
`)
    } else if (operation.status === 'succeeded') this.write(`Operation ${operation.id} ${paint('succeeded', 'healthy', this.style)}: ${stopped}/${total} partitions STOPPED in ${took}${said}
`)
    else if (operation.status === 'failed') this.write(`Operation ${operation.id} ${paint('failed', 'danger', this.style)} after ${took}: ${stopped}/${total} partitions STOPPED${said}
`)
    else this.write(`Operation ${operation.id} is still running (${stopped}/${total} partitions STOPPED); it goes on in the server: mirrorboard --operations --watch ${operation.id}\n`)
  }

  interrupted(): void {
    this.clearBar()
  }

  private line(now: number, text: string): void {
    this.write(`${clockTime(now)}  ${text}\n`)
  }

  private drawBar(operation: Operation, now: number): void {
    if (!this.bar || operation.status !== 'running') return
    const summary = summarizeProgress(operation.partitions, null, now)
    const filled = Math.round(summary.fraction * BAR_WIDTH)
    const current = STOPPING_STEPS.find((step) => step !== 'done' && summary.byStep[step] > 0)
    const text = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${summary.done}/${summary.total} STOPPED${current === undefined ? '' : ` · next: ${current}`} · ${formatDuration(now - operation.startedAt)}`
    this.write(text.slice(0, Math.max(20, this.io.columns - 1)))
    this.barShown = true
  }

  private clearBar(): void {
    if (!this.barShown) return
    this.write('\r\u001b[2K')
    this.barShown = false
  }
}

/** Follows one operation until it ends (or Ctrl-C): the stream first, then the operation as it is now. */
export async function watchOperation(context: Pick<Context, 'api' | 'io' | 'out' | 'style'>, id: string): Promise<Operation> {
  const { api, io, out, style } = context
  const controller = new AbortController()
  const stop = () => controller.abort()
  io.signal.addEventListener('abort', stop, { once: true })
  // Progress is for people: on stderr when stdout carries --json.
  const write = (text: string) => (out.machine ? io.stderr : io.stdout).write(text)
  const printer = new ProgressPrinter(io, write, style, out.machine ? false : io.stdoutIsTty)
  try {
    const stream = await EventStream.open(api, ['operation'], controller.signal)
    let operation = await api.call(mirrorEndpoints.getOperation, { params: { id } })
    write(`Operation ${operation.id}: ${operation.type === 'planned' ? 'planned ' : ''}${operation.kind} of ${operation.mirror}, ${operation.partitions.length} partition${operation.partitions.length === 1 ? '' : 's'}\n`)
    printer.update(operation)
    if (operation.status === 'running') {
      for await (const event of stream) {
        if (event.type === 'resync') operation = await api.call(mirrorEndpoints.getOperation, { params: { id } })
        else if (event.type === 'operation') {
          const parsed = OperationEvent.safeParse(eventData(event))
          if (!parsed.success || parsed.data.id !== id) continue
          operation = applyOperationEvent(operation, parsed.data) ?? (await api.call(mirrorEndpoints.getOperation, { params: { id } }))
        } else continue
        printer.update(operation)
        if (operation.status !== 'running') break
      }
    }
    printer.finish(operation)
    return operation
  } catch (error) {
    if (io.signal.aborted) {
      printer.interrupted()
      write(`Interrupted: operation ${id} goes on in the server (follow it with mirrorboard --operations --watch ${id})\n`)
    }
    throw error
  } finally {
    io.signal.removeEventListener('abort', stop)
    controller.abort()
  }
}
