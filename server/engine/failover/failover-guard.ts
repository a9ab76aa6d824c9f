import 'server-only'
import type { MirrorEngine } from '../engine'
import { EngineError } from '../errors'
import type { FailoverOperation } from '../types'

/**
 * One failover at a time per mirror and partition: a double click, a second tab or a second operator
 * must not start a second operation over partitions a running one is stopping. A request is refused
 * (CONFLICT, with the running operation's id so a client can show it) while another request for the same
 * mirror is being planned, or while a running operation holds any of the partitions it would stop.
 */
// On globalThis: every route bundle that loads this module must see the same requests in flight.
const PLANNING = Symbol.for('mirrorboard.failoversBeingPlanned')
const registry = globalThis as typeof globalThis & { [PLANNING]?: Set<string> }
const planning = (registry[PLANNING] ??= new Set<string>())

export async function guardFailover<T>(engine: MirrorEngine, mirror: string, topics: readonly string[] | undefined, start: () => Promise<T>): Promise<T> {
  const running = runningFailover(engine, mirror, topics)
  if (running !== null) {
    throw new EngineError('CONFLICT', `failover ${running.id} of mirror ${mirror} is still running; follow it instead of starting another`, {
      details: { operation: running.id },
    })
  }
  if (planning.has(mirror)) {
    throw new EngineError('CONFLICT', `a failover of mirror ${mirror} is being started right now`)
  }
  planning.add(mirror)
  try {
    return await start()
  } finally {
    planning.delete(mirror)
  }
}

/** A running failover of `mirror` that stops any partition of `topics` (all topics when absent). */
export function runningFailover(engine: MirrorEngine, mirror: string, topics: readonly string[] | undefined): FailoverOperation | null {
  const wanted = topics === undefined ? null : new Set(topics)
  for (const operation of engine.listOperations({ status: 'running' })) {
    if (operation.mirror !== mirror || operation.kind !== 'failover') continue
    if (wanted === null || operation.partitions.some((partition) => wanted.has(partition.topic))) return operation
  }
  return null
}
