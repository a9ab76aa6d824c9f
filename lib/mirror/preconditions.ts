/**
 * The preconditions of the operator commands on a mirror (KIP-1279.md §6.1/§6.2, prototype
 * `validateMirrorStates`), in one table that the engine and the API's dry runs both plan with.
 *
 * Derived from the transition table (lib/mirror/states.ts `statesLeftBy`), so the engine, the dry runs and
 * the state graph cannot disagree: a command applies in a state where its event leads somewhere else.
 *
 * | command  | partitions it applies to                                                                  |
 * |----------|-------------------------------------------------------------------------------------------|
 * | start    | STOPPED, UNKNOWN (and topics the mirror does not have yet)                                |
 * | stop     | MIRRORING, PAUSED, FAILED (DESIGN.md §1: a disaster failover), and the transient states   |
 * |          | a stop may start from: PREPARING, EPOCH_FENCING, ULE_LOG_TRUNCATION, PAUSING, STOPPING    |
 * | pause    | MIRRORING; FAILED when it failed while mirroring or pausing (the table's guard            |
 * |          | isPauseSafeAfterFailure, checked per partition when its value is known)                   |
 * | resume   | PAUSED                                                                                    |
 * | recover  | FAILED                                                                                    |
 * | delete   | every partition STOPPED                                                                   |
 *
 * A command naming topics fails whole when any of their partitions is in another state; one without
 * topics applies to the partitions it may and reports the others as skipped, and fails when that
 * leaves none. Decision beyond the prototype: a stop treats STOPPED partitions as done (skipped, also
 * when named), as re-entering a state is a no-op in the transition table, so a failover that was
 * interrupted can be run again on the same topics; STOPPING is allowed so that such a re-run resumes
 * the partitions still stopping.
 */
import { GUARDS } from './guards'
import type { MirrorPartitionValue } from './partition'
import { leavingRules, OPERATOR_EVENTS, statesLeftBy, type MirrorPartitionState } from './states'

export type MirrorCommand = 'start' | 'stop' | 'pause' | 'resume' | 'recover' | 'delete'

/** What a command applies to beyond the table's rules: its re-runs and its one non-event command. */
const BEYOND_THE_TABLE: Readonly<Record<MirrorCommand, readonly MirrorPartitionState[]>> = {
  start: [],
  stop: ['STOPPING'],
  pause: [],
  resume: [],
  recover: [],
  delete: ['STOPPED'],
}

function preconditionOf(command: MirrorCommand): readonly MirrorPartitionState[] {
  const fromTable = command === 'delete' ? [] : statesLeftBy(OPERATOR_EVENTS[command])
  return [...fromTable, ...BEYOND_THE_TABLE[command].filter((state) => !fromTable.includes(state))]
}

export const COMMAND_PRECONDITIONS: Readonly<Record<MirrorCommand, readonly MirrorPartitionState[]>> = {
  start: preconditionOf('start'),
  stop: preconditionOf('stop'),
  pause: preconditionOf('pause'),
  resume: preconditionOf('resume'),
  recover: preconditionOf('recover'),
  delete: preconditionOf('delete'),
}

/** States in which a command has nothing left to do: skipped even when named. */
const ALREADY_DONE: Readonly<Partial<Record<MirrorCommand, readonly MirrorPartitionState[]>>> = {
  stop: ['STOPPED'],
}

export interface PartitionStateRef {
  readonly topic: string
  readonly partition: number
  readonly state: MirrorPartitionState
  /**
   * The partition's value, when the caller holds it (the engine does; a dry run over snapshots does not):
   * a rule's guard is then checked too, so a command never "applies" to a partition the table would ignore.
   */
  readonly value?: MirrorPartitionValue
}

export interface CommandRefusal {
  readonly command: MirrorCommand
  readonly message: string
  /** Every partition that does not meet the precondition, with its state. */
  readonly partitions: ReadonlyArray<{ topic: string; partition: number; state: MirrorPartitionState }>
  readonly allowedStates: readonly MirrorPartitionState[]
}

export type CommandPlan<P extends PartitionStateRef> =
  | { readonly ok: true; readonly apply: readonly P[]; readonly skipped: ReadonlyArray<{ topic: string; partition: number; state: MirrorPartitionState }> }
  | { readonly ok: false; readonly refusal: CommandRefusal }

export function meetsPrecondition(command: MirrorCommand, state: MirrorPartitionState): boolean {
  return COMMAND_PRECONDITIONS[command].includes(state)
}

/** The state allows the command, and the table's guard on it (if any) passes for the partition's value. */
function qualifies(command: MirrorCommand, partition: PartitionStateRef): boolean {
  if (!meetsPrecondition(command, partition.state)) return false
  if (command === 'delete' || partition.value === undefined) return true
  const event = { type: OPERATOR_EVENTS[command] } as const
  const rules = leavingRules(partition.state, event.type)
  if (rules.length === 0) return true
  const value = partition.value
  // Operator guards read the partition alone; the ULE flag is no operator's business.
  return rules.some((rule) => (rule.when === undefined || GUARDS[rule.when](value, event, { mirrorSupportUncleanLeaderElection: false })) && (rule.unless === undefined || !GUARDS[rule.unless](value, event, { mirrorSupportUncleanLeaderElection: false })))
}

function ref(partition: PartitionStateRef): { topic: string; partition: number; state: MirrorPartitionState } {
  return { topic: partition.topic, partition: partition.partition, state: partition.state }
}

/**
 * Which of `partitions` a command applies to. `named`: the request named its topics (they must all
 * qualify); otherwise the command applies where it may. `delete` is all-or-nothing either way.
 */
export function planCommand<P extends PartitionStateRef>(command: MirrorCommand, partitions: readonly P[], options: { named: boolean; mirror: string }): CommandPlan<P> {
  const allowed = COMMAND_PRECONDITIONS[command]
  const done = ALREADY_DONE[command] ?? []
  const apply: P[] = []
  const skipped: Array<{ topic: string; partition: number; state: MirrorPartitionState }> = []
  const offending: Array<{ topic: string; partition: number; state: MirrorPartitionState }> = []
  for (const partition of partitions) {
    if (qualifies(command, partition)) apply.push(partition)
    else if (done.includes(partition.state)) skipped.push(ref(partition))
    else offending.push(ref(partition))
  }
  const refuse = (message: string, list: typeof offending): CommandPlan<P> => ({ ok: false, refusal: { command, message, partitions: list, allowedStates: allowed } })
  if (command === 'delete' || options.named) {
    if (offending.length > 0) {
      return refuse(`${command} needs every ${command === 'delete' ? '' : 'named '}partition in ${allowed.join(' or ')}; ${describe(offending)}`, offending)
    }
  } else {
    skipped.push(...offending)
  }
  if (apply.length === 0 && command !== 'start') {
    const list = skipped.length > 0 ? skipped : offending
    return refuse(
      partitions.length === 0 ? `mirror ${options.mirror} has no partitions to ${command}` : `no partition of mirror ${options.mirror} is in ${allowed.join(' or ')}; ${describe(list)}`,
      list,
    )
  }
  return { ok: true, apply, skipped }
}

/** `orders-0 is MIRRORING, orders-1 is PAUSED` (at most five named). */
function describe(partitions: ReadonlyArray<{ topic: string; partition: number; state: MirrorPartitionState }>): string {
  const shown = partitions.slice(0, 5).map((p) => `${p.topic}-${p.partition} is ${p.state}`)
  const more = partitions.length > 5 ? ` and ${partitions.length - 5} more` : ''
  return `${shown.join(', ')}${more}`
}

export type StartPlan<P extends PartitionStateRef> =
  | {
      readonly ok: true
      /** Topics to start: named ones, and matched ones new to the mirror or with a partition that may start. */
      readonly topics: readonly string[]
      readonly apply: readonly P[]
      readonly skipped: ReadonlyArray<{ topic: string; partition: number; state: MirrorPartitionState }>
    }
  | { readonly ok: false; readonly refusal: CommandRefusal }

/**
 * A start names topics and/or gives patterns. Named topics must be STOPPED or UNKNOWN (or new to the
 * mirror) in every partition; topics only matched by a pattern start where they may and skip the rest.
 * Patterns that match nothing are fine (the mirror keeps them for discovery); topics that all match but
 * none may start are refused.
 */
export function planStart<P extends PartitionStateRef>(input: { mirror: string; named: readonly string[]; matched: readonly string[]; partitions: readonly P[] }): StartPlan<P> {
  const named = new Set(input.named)
  const matchedOnly = input.matched.filter((topic) => !named.has(topic))
  const byTopic = new Map<string, P[]>()
  for (const partition of input.partitions) {
    const list = byTopic.get(partition.topic)
    if (list) list.push(partition)
    else byTopic.set(partition.topic, [partition])
  }
  const namedPartitions = [...named].flatMap((topic) => byTopic.get(topic) ?? [])
  const namedPlan = planCommand('start', namedPartitions, { named: true, mirror: input.mirror })
  if (!namedPlan.ok) return namedPlan
  const apply: P[] = [...namedPlan.apply]
  const skipped: Array<{ topic: string; partition: number; state: MirrorPartitionState }> = []
  const topics: string[] = [...named]
  for (const topic of matchedOnly) {
    const partitions = byTopic.get(topic) ?? []
    const startable = partitions.filter((partition) => meetsPrecondition('start', partition.state))
    for (const partition of partitions) if (!startable.includes(partition)) skipped.push(ref(partition))
    if (partitions.length === 0 || startable.length > 0) topics.push(topic)
    apply.push(...startable)
  }
  if (topics.length === 0 && skipped.length > 0) {
    return {
      ok: false,
      refusal: {
        command: 'start',
        message: `start needs partitions in ${COMMAND_PRECONDITIONS.start.join(' or ')}; ${describe(skipped)}`,
        partitions: skipped,
        allowedStates: COMMAND_PRECONDITIONS.start,
      },
    }
  }
  return { ok: true, topics, apply, skipped }
}
