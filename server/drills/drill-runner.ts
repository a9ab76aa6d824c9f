import 'server-only'
import type { Drill, DrillPhase } from '@/lib/api/drills'
import { check, type DrillCheck } from '@/lib/drill/checks'
import { quantile } from '@/lib/drill/cadence'
import { drillPauseMs } from '@/lib/drill/pacing'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { GroupOffsets, MirrorStateAppendEntry, SourceCluster, TopicPartition } from '@/server/cluster/ports'
import type { MirrorEngine } from '@/server/engine/engine'
import type { PartitionSnapshot } from '@/server/engine/types'
import { skipSyncsUnder } from '@/server/util/durable-file'
import { checkSourceUntouched, type Pace } from './drill-checks'
import { copyFromBrokerLog, copyFromFiles, removeSandbox, type SandboxCopy } from './sandbox'
import { SandboxProcess } from './sandbox-process'

/**
 * One drill, from its copy to its cleanup (the life around it — records, one at a time per mirror, restarts —
 * is drills.ts). In order:
 *
 *   copying      as one of the mirror's commands (nothing else changes the mirror meanwhile): each MIRRORING
 *                partition of the chosen topics copied at its mirrored point, with its `__mirror_state` record
 *                and the groups' committed offsets; the lag at that moment is the RPO;
 *   failingOver  the sandbox opened and seeded, the real failover run on it (sandbox-failover.ts): drill start →
 *                every copied partition writable is the RTO;
 *   checking     markers, read_committed, group offsets, producers (read back after each partition's broker
 *                restarts as after a crash),
 *                the source untouched (read back from the copy's point on), the production mirror still MIRRORING;
 *   cleaningUp   the sandbox's process ended and its directory removed, whatever happened before.
 *
 * The sandbox's open, failover and its checks run in a process of its own at a low CPU priority (nice 10 until the
 * copy is writable, then 19 for the checks)
 * (sandbox-process.ts, sandbox-child.ts), forked before the drill as a spare (sandbox-spare.ts: no turn of the drill
 * waits for a fork) and taken as the drill starts, so its modules load during the copy; the copy
 * (production's files, inside the mirror's command) and the checks that read production (the source untouched,
 * the mirror still MIRRORING) stay here.
 */

export type DestinationAccess = { kind: 'embedded'; cluster: EmbeddedCluster; reader: SourceCluster } | { kind: 'kafka'; reader: SourceCluster }

export interface RunnerEnvironment {
  now(): number
  log(message: string, fields: Record<string, unknown>): void
  engine: Pick<MirrorEngine, 'getMirror' | 'partitions' | 'mirrorSummary' | 'copyForDrill' | 'stateRecordsForCopy'>
  destination(cluster: string): DestinationAccess
  /** The mirror's source as a consumer reads it: the drill's last check reads what it took meanwhile. */
  source(cluster: string): SourceCluster
}

export interface DrillControl {
  /** Publishes the drill and persists it (a phase began, a figure is known); writes of one drill land in order. */
  changed(): Promise<void>
  cancelled(): boolean
  /** Tests and the crash test's child wait here at the start of each phase; `saved` resolves once the phase is written. */
  atPhase?(phase: DrillPhase, saved: Promise<void>): Promise<void> | void
  /** Where this drill's sandbox lives. */
  readonly sandboxDir: string
  readonly lagSampleMs: number
  /** The drill's sandbox process, its modules loading: the spare forked before the drill (drills.ts); one forked now without. */
  sandboxProcess?(log: RunnerEnvironment['log']): { process: SandboxProcess; spare: boolean }
}

class Cancelled extends Error {}

interface Copied {
  readonly copy: SandboxCopy
  /** A copy from a Kafka destination's broker log fills an open sandbox: closed before the sandbox's process opens it. */
  readonly sandbox: EmbeddedCluster | null
  readonly state: MirrorStateAppendEntry[]
  readonly groups: GroupOffsets[]
  readonly drilled: TopicPartition[]
  readonly snapshots: ReadonlyArray<Readonly<PartitionSnapshot>>
}

export async function runDrill(drill: Drill, env: RunnerEnvironment, control: DrillControl): Promise<void> {
  const definition = env.engine.getMirror(drill.mirror)
  const samples = { offsetLag: [] as number[], timeLagMs: [] as number[] }
  const sampler = setInterval(() => {
    try {
      const summary = env.engine.mirrorSummary(drill.mirror)
      samples.offsetLag.push(summary.maxOffsetLag ?? 0)
      samples.timeLagMs.push(summary.maxTimeLagMs ?? 0)
    } catch {
      // The mirror deleted meanwhile: the drill ends on its own checks.
    }
    sandboxProcess?.lag(samples.timeLagMs.at(-1) ?? null)
  }, control.lagSampleMs)
  // The checks give way to production mirroring when its lag grows past its budget (lib/drill/pacing.ts): the lag
  // when the drill started against the sampler's latest.
  const baselineLagMs = currentTimeLagMs(env, drill.mirror) ?? 0
  const pace: Pace = () => {
    const ms = drillPauseMs(samples.timeLagMs.at(-1) ?? null, baselineLagMs)
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined
  }
  let sandboxProcess: SandboxProcess | null = null
  // The sandbox is removed at the next start after any crash (drills.ts), so none of its writes needs an fsync:
  // its copy, failover, producers and closes then cost no disk flushes, which production's appends would wait behind.
  const releaseSyncs = skipSyncsUnder(control.sandboxDir)
  // Announced only once the sandbox is gone: a drill reads as running until then.
  let outcome: Drill['status'] = 'failed'
  // A phase's record is written while its work runs, not before: the record of a running drill is what the UI
  // shows (published at once) and what a restart reads to name the phase it failed in, and no step of the drill
  // depends on it being on disk. Awaited, each write's fsync queued behind production's and sat in the RTO
  // (0.2–0.6 s a phase at load 12–15, npm run bench -- drill, session 21). The last write (drills.ts) follows
  // these in order (JsonRecordStore chains one record's writes).
  const phase = async (next: DrillPhase) => {
    if (control.cancelled()) throw new Cancelled()
    drill.phase = next
    const saved = control.changed()
    await control.atPhase?.(next, saved)
    if (control.cancelled()) throw new Cancelled()
  }
  try {
    // Its modules load while the copy is taken.
    const taken = control.sandboxProcess?.(env.log) ?? forkSandboxProcess(env.log)
    sandboxProcess = taken.process
    const watch = stepWatch()
    await phase('copying')
    watch.lap('copyingAnnounced')
    const copied = await env.engine.copyForDrill(drill.mirror, drill.topics, () => takeCopy(drill, env, control.sandboxDir, definition))
    // Closed cleanly (unsynced, under skipSyncsUnder): the sandbox's process opens it from its files.
    await copied.sandbox?.close()
    const copiedEnd = new Map(copied.copy.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p.logEndOffset]))
    drill.sandbox = { ...drill.sandbox, copiedFrom: copied.copy.copiedFrom, filesLinked: copied.copy.filesLinked, bytesCopied: copied.copy.bytesCopied, emulation: [...copied.copy.emulation] }
    drill.partitions = copied.snapshots.map((snapshot) => ({
      topic: snapshot.topic,
      partition: snapshot.partition,
      mirroredOffset: copiedEnd.get(`${snapshot.topic}\u0000${snapshot.partition}`) ?? snapshot.destinationLogEndOffset,
      markers: [],
      plannedAborts: [],
      sourceHighWatermark: snapshot.sourceHighWatermark,
    }))
    drill.rpo = rpoOf(copied.snapshots)

    watch.lap('copy')
    await phase('failingOver')
    watch.lap('failingOverAnnounced')
    await sandboxProcess.whenReady().catch(async (error: unknown) => {
      // A spare that died as the drill took it (its exit not yet reported then): the drill forks its own.
      if (!taken.spare) throw error
      env.log('drill spare sandbox process ended as it was taken; forking another', { drill: drill.id, error: error instanceof Error ? error.message : String(error) })
      sandboxProcess = forkSandboxProcess(env.log).process
      await sandboxProcess.whenReady()
    })
    watch.lap('sandboxProcessReady')
    await sandboxProcess.sendCloseStates(copied.copy.closeStates)
    const failover = await sandboxProcess.request(
      {
        type: 'failOver',
        dir: control.sandboxDir,
        name: drill.sandbox.name,
        state: copied.state,
        groups: copied.groups,
        drilled: copied.drilled,
        mirror: drill.mirror,
        sourceCluster: definition.sourceCluster,
        destinationCluster: definition.destinationCluster,
        topics: [...drill.topics],
        baselineLagMs,
      },
      'failedOver',
    )
    if (failover.status !== 'succeeded') throw new Error(`the failover of the copy did not finish: ${failover.notStopped.slice(0, 5).join(', ')}`)
    // Past the RTO: the checks give production the cores first (sandbox-process.ts SANDBOX_NICE).
    sandboxProcess.lowerForChecks()
    drill.rtoMs = Math.max(0, (failover.finishedAt ?? env.now()) - drill.startedAt)
    watch.lap('failOverRequest')
    env.log('drill steps', { drill: drill.id, phase: 'failingOver', rtoMs: drill.rtoMs, sandboxProcess: { pid: sandboxProcess.pid, spare: taken.spare }, server: watch.take(), sandbox: failover.steps })
    const planned = new Map(failover.plannedAborts)
    for (const entry of drill.partitions) entry.plannedAborts = planned.get(`${entry.topic}\u0000${entry.partition}`) ?? []
    void control.changed()

    await phase('checking')
    watch.lap('checkingAnnounced')
    const onCopy = await sandboxProcess.request({ type: 'check', drillId: drill.id }, 'checked')
    watch.lap('checkRequest')
    for (const entry of drill.partitions) entry.markers = onCopy.markers.get(`${entry.topic}\u0000${entry.partition}`) ?? []
    const checks: DrillCheck[] = [...onCopy.checks]
    checks.push(await checkSourceUntouched(env.source(definition.sourceCluster), { sourceName: definition.sourceCluster, drillId: drill.id, partitions: drill.partitions, refusedCalls: failover.refusedCalls, pace }))
    watch.lap('sourceUntouched')
    checks.push(productionKeptMirroring(env, drill, copied.drilled))
    env.log('drill steps', { drill: drill.id, phase: 'checking', server: watch.take(), sandbox: onCopy.steps })
    drill.checks = checks
    outcome = checks.every((entry) => entry.ok) ? 'succeeded' : 'failed'
    if (outcome === 'failed') drill.stoppedIn = 'checking'
  } catch (error) {
    drill.stoppedIn = drill.phase
    if (error instanceof Cancelled) outcome = 'cancelled'
    else {
      outcome = 'failed'
      drill.error = error instanceof Error ? error.message : String(error)
      env.log('drill failed', { drill: drill.id, mirror: drill.mirror, phase: drill.phase, error: drill.error })
    }
  } finally {
    clearInterval(sampler)
    drill.productionLag = lagOf(samples)
    drill.phase = 'cleaningUp'
    await control.changed().catch(() => undefined)
    // Its logs are removed next: nothing of them needs writing, so the process just ends.
    await sandboxProcess?.kill()
    await removeSandbox(control.sandboxDir)
    releaseSyncs()
    drill.sandbox = { ...drill.sandbox, removed: true }
    drill.phase = 'done'
    drill.finishedAt = env.now()
    drill.status = outcome
  }
}

function forkSandboxProcess(log: RunnerEnvironment['log']): { process: SandboxProcess; spare: boolean } {
  const process = SandboxProcess.spawn(log)
  process.load()
  return { process, spare: false }
}

/** Milliseconds of each step of the drill since the previous (the drill's log: where its time goes). */
function stepWatch(): { lap(step: string): void; take(): Array<[string, number]> } {
  let steps: Array<[string, number]> = []
  let last = performance.now()
  return {
    lap(step) {
      const now = performance.now()
      steps.push([step, Math.round(now - last)])
      last = now
    },
    take() {
      const taken = steps
      steps = []
      return taken
    },
  }
}

/** The copy, taken inside the mirror's command: partitions chosen, state records, files or batches, group offsets. */
async function takeCopy(drill: Drill, env: RunnerEnvironment, dir: string, definition: ReturnType<RunnerEnvironment['engine']['getMirror']>): Promise<Copied> {
  // The sandbox's process was forked in the turn that started the drill (~20 ms of this thread): the mirror's
  // partitions and their state records (~25 ms for 2,000) get a turn of their own, the copy's captures then turns
  // of their own (partition-copies.ts CAPTURES_PER_TURN). A timer, not setImmediate: an immediate queued from an
  // I/O callback runs in the same pass of the event loop, before its timers (the stall meter's) and its next poll.
  await new Promise((resolve) => setTimeout(resolve, 0))
  const topics = new Set(drill.topics)
  const all = env.engine.partitions(drill.mirror).filter((p) => topics.has(p.topic))
  const snapshots = all.filter((p) => p.state === 'MIRRORING')
  drill.skipped = all.filter((p) => p.state !== 'MIRRORING').map(({ topic, partition, state }) => ({ topic, partition, state }))
  if (snapshots.length === 0) throw new Error(`no partition of ${drill.topics.join(', ')} is MIRRORING any more`)
  const drilled = snapshots.map(({ topic, partition }) => ({ topic, partition }))
  const state = env.engine.stateRecordsForCopy(drill.mirror, drilled, drill.topics)
  const destination = env.destination(definition.destinationCluster)
  if (destination.kind === 'embedded') {
    const copy = await copyFromFiles(destination.cluster, dir, drilled)
    return { copy, sandbox: null, state, groups: await destination.reader.listGroupOffsets(), drilled, snapshots }
  }
  const described = await destination.reader.describeTopics([...drill.topics])
  const leaderEpochs = new Map(snapshots.map((p) => [`${p.topic}\u0000${p.partition}`, p.destinationLeaderEpoch]))
  const { sandbox, copy } = await copyFromBrokerLog({ reader: destination.reader, dir, name: drill.sandbox.name, mirror: drill.mirror, topics: described, partitions: drilled, leaderEpochs, now: env.now })
  return { copy, sandbox, state, groups: await destination.reader.listGroupOffsets(), drilled, snapshots }
}

/** What a failover when the copy was taken would have lost: the lag of the copied partitions then. */
function rpoOf(snapshots: ReadonlyArray<Readonly<PartitionSnapshot>>): Drill['rpo'] {
  let records: number | null = 0
  let timeLagMs: number | null = 0
  for (const snapshot of snapshots) {
    records = records === null || snapshot.offsetLag === null ? null : records + snapshot.offsetLag
    timeLagMs = timeLagMs === null || snapshot.timeLagMs === null ? null : Math.max(timeLagMs, snapshot.timeLagMs)
  }
  return { records, seconds: timeLagMs === null ? null : timeLagMs / 1000 }
}

function productionKeptMirroring(env: RunnerEnvironment, drill: Drill, drilled: readonly TopicPartition[]): DrillCheck {
  const wanted = new Set(drilled.map((tp) => `${tp.topic}\u0000${tp.partition}`))
  const left = env.engine
    .partitions(drill.mirror)
    .filter((p) => wanted.has(`${p.topic}\u0000${p.partition}`) && p.state !== 'MIRRORING')
    .map((p) => `${p.topic}-${p.partition} is ${p.state}${p.error ? ` (${p.error})` : ''}`)
  return check('production-kept-mirroring', left, `${drilled.length === 1 ? 'the drilled partition' : `all ${drilled.length} drilled partitions`} of the mirror kept MIRRORING while the drill ran`)
}

function currentTimeLagMs(env: RunnerEnvironment, mirror: string): number | null {
  try {
    return env.engine.mirrorSummary(mirror).maxTimeLagMs ?? null
  } catch {
    return null
  }
}

function lagOf(samples: { offsetLag: number[]; timeLagMs: number[] }): Drill['productionLag'] {
  if (samples.offsetLag.length === 0) return null
  return {
    samples: samples.offsetLag.length,
    maxOffsetLag: Math.max(...samples.offsetLag),
    p99OffsetLag: quantile(samples.offsetLag, 0.99) ?? 0,
    maxTimeLagMs: Math.round(Math.max(...samples.timeLagMs)),
    p99TimeLagMs: Math.round(quantile(samples.timeLagMs, 0.99) ?? 0),
  }
}
