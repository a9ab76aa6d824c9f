import 'server-only'
import os from 'node:os'
import type { DrillCheck } from '@/lib/drill/checks'
import { drillPauseMs } from '@/lib/drill/pacing'
import type { EmbeddedCluster } from '@/server/cluster/embedded/embedded-cluster'
import type { LogCloseState } from '@/server/storage/types'
import { skipSyncsUnder } from '@/server/util/durable-file'
import { checkGroupOffsets, checkMarkers, checkReadCommitted, checkWritesReadBack, writeToCopy, type Pace } from './drill-checks'
import { IsolatedSource } from './isolated-source'
import { openSandbox, seedSandbox } from './sandbox'
import { failOverSandbox, type SandboxFailover } from './sandbox-failover'
import type { FromChild, StepTimes, ToChild } from './sandbox-protocol'

/**
 * The sandbox's own process (started by sandbox-process.ts at a low CPU priority, the lowest once its copy is writable): the drill's copy opened,
 * seeded and failed over, then its checks, then ended by the parent — each on the parent's word, so the drill's
 * phases (and its records) stay the parent's. On one event loop with the production mirror, this work held the
 * loop 93–100 % of a drill and production's every fetch and append queued behind it (server/drills/README.md,
 * sessions 18–19); here the OS gives production its share first. Loaded by sandbox-child.ts (the process's entry)
 * when a drill takes the process: a spare waiting for its drill holds none of these modules.
 */

let sandbox: EmbeddedCluster | null = null
let failover: SandboxFailover | null = null
let drilled: Extract<ToChild, { type: 'failOver' }>['drilled'] = []
let groups: Extract<ToChild, { type: 'failOver' }>['groups'] = []
let refusedGroups: Awaited<ReturnType<typeof seedSandbox>> = []
/** The copy's logs' states at the copy, as the `closeStates` messages before `failOver` bring them. */
const closeStates = new Map<string, LogCloseState>()
let baselineLagMs = 0
let latestLagMs: number | null = null

// The parent's latest view of production's lag (it samples the mirror; this process cannot see it).
const paused = { count: 0, ms: 0 }
const pace: Pace = () => {
  const ms = drillPauseMs(latestLagMs, baselineLagMs)
  if (ms > 0) {
    paused.count += 1
    paused.ms += ms
  }
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined
}

/** Each step's milliseconds since the previous lap, for the drill's log. */
function stopwatch(): { lap(step: string): void; steps: StepTimes } {
  const steps: StepTimes = []
  let last = performance.now()
  return {
    steps,
    lap(step) {
      const now = performance.now()
      steps.push({ step, ms: Math.round(now - last), endedAt: Date.now(), pausedMs: paused.ms, pauses: paused.count, nice: os.getPriority() })
      paused.ms = 0
      paused.count = 0
      last = now
    },
  }
}

function send(message: FromChild): void {
  process.send?.(message)
}

const log = (message: string, fields: Record<string, unknown>) => send({ type: 'log', message, fields })

export async function handle(message: Exclude<ToChild, { type: 'load' }>): Promise<FromChild | null> {
  switch (message.type) {
    case 'lag':
      latestLagMs = message.lagMs
      return null
    case 'closeStates':
      for (const [dir, state] of message.entries) closeStates.set(dir, state)
      return null
    case 'failOver': {
      baselineLagMs = message.baselineLagMs
      drilled = message.drilled
      groups = message.groups
      skipSyncsUnder(message.dir)
      const watch = stopwatch()
      sandbox = await openSandbox(message.dir, message.name, closeStates, pace)
      watch.lap('open')
      refusedGroups = await seedSandbox(sandbox, message.state, message.groups, message.drilled)
      watch.lap('seed')
      const isolated = new IsolatedSource(message.sourceCluster)
      failover = await failOverSandbox({ mirror: message.mirror, sourceCluster: message.sourceCluster, destinationCluster: message.destinationCluster, sandbox, isolated, topics: message.topics, log, pace, lap: watch.lap })
      // What the drill's record and its error need of the plan and the operation, not both whole: their clone of
      // 2,000 partitions each was parsed in one turn of the server's main thread (~20 ms under a profiler, session 27).
      const { operation, plan } = failover
      return {
        type: 'failedOver',
        status: operation.status,
        finishedAt: operation.finishedAt,
        notStopped: operation.partitions.filter((p) => p.state !== 'STOPPED').map((p) => `${p.topic}-${p.partition} ${p.state}${p.error ? ` (${p.error})` : ''}`),
        plannedAborts: plan.partitions.filter((p) => p.transactionsToAbort.length > 0).map((p) => [`${p.topic}\u0000${p.partition}`, p.transactionsToAbort.map(({ producerId, firstOffset }) => ({ producerId, firstOffset }))]),
        refusedCalls: isolated.refusedCalls,
        steps: watch.steps,
      }
    }
    case 'check': {
      if (sandbox === null || failover === null) throw new Error('the copy was not failed over')
      const checks: DrillCheck[] = []
      const watch = stopwatch()
      const markers = await checkMarkers(sandbox, failover.plan, failover.partitions, pace)
      checks.push(markers.check)
      watch.lap('markers')
      checks.push(await checkReadCommitted(sandbox, drilled, pace))
      watch.lap('readCommitted')
      checks.push(await checkGroupOffsets(sandbox, groups, drilled, refusedGroups))
      watch.lap('groupOffsets')
      const writes = await writeToCopy(sandbox, message.drillId, drilled, pace)
      watch.lap('writes')
      // Acknowledged writes must survive a restart of the copy's broker: each partition's log recovered from its
      // files as after a crash, then read back.
      checks.push(...(await checkWritesReadBack(sandbox, drilled, writes, { restart: true, pace })))
      watch.lap('readBack')
      return { type: 'checked', checks, markers: markers.markers, steps: watch.steps }
    }
  }
}
