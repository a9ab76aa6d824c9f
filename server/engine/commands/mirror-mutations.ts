import 'server-only'
import type { MirrorEngine } from '../engine'
import { EngineError } from '../errors'
import { ifMatchAdmits, mirrorStateVersion } from './state-version'

/**
 * Mutations of one mirror run one at a time, each with its If-Match check first (KIP-1279.md §6.1,
 * StateOffset): the check and the change it guards see the same state, and two operators' requests
 * never interleave half-applied. Mirrors are independent of each other. The queues are kept per engine
 * (the API object is made per request).
 */

const queues = new WeakMap<MirrorEngine, Map<string, Promise<unknown>>>()

export interface MutationConditions {
  /** The request's If-Match header, when it had one. */
  ifMatch?: string | null
}

export function currentStateVersion(engine: MirrorEngine, mirror: string): string {
  return mirrorStateVersion(engine.stateVersionInputs(mirror))
}

/** Throws PRECONDITION_FAILED (changing nothing) when If-Match does not admit the mirror's current version. */
export function checkIfMatch(engine: MirrorEngine, mirror: string, conditions: MutationConditions | undefined): void {
  const ifMatch = conditions?.ifMatch
  if (ifMatch === undefined || ifMatch === null) return
  const current = currentStateVersion(engine, mirror)
  if (!ifMatchAdmits(ifMatch, current)) {
    throw new EngineError('PRECONDITION_FAILED', `mirror ${mirror} changed since that version was read (If-Match ${ifMatch.slice(0, 200)}); read it again`, {
      details: { ifMatch: ifMatch.slice(0, 200), stateVersion: current },
    })
  }
}

/**
 * Runs `work` after every earlier mutation of the mirror has finished, with the If-Match check first.
 * `holdUntil`: a mutation that goes on after it answers (a failover's operation) keeps the next one
 * waiting until that promise settles.
 */
export function mutateMirror<T>(
  engine: MirrorEngine,
  mirror: string,
  conditions: MutationConditions | undefined,
  work: () => Promise<T>,
  options: { holdUntil?: (value: T) => Promise<unknown> } = {},
): Promise<T> {
  let byMirror = queues.get(engine)
  if (!byMirror) queues.set(engine, (byMirror = new Map()))
  const previous = byMirror.get(mirror) ?? Promise.resolve()
  const result = previous.then(async () => {
    checkIfMatch(engine, mirror, conditions)
    return work()
  })
  const tail = result.then(
    (value) => options.holdUntil?.(value),
    () => undefined,
  ).then(
    () => undefined,
    () => undefined,
  )
  byMirror.set(mirror, tail)
  void tail.then(() => {
    if (byMirror.get(mirror) === tail) byMirror.delete(mirror)
  })
  return result
}
