import 'server-only'
import { planCommand, planStart, type CommandRefusal, type MirrorCommand, type PartitionStateRef } from '@/lib/mirror/preconditions'
import type { MirrorPartitionState } from '@/lib/mirror/states'
import { EngineError } from '../errors'
import type { PartitionRuntime } from '../types'

/**
 * The engine's side of the command preconditions (lib/mirror/preconditions.ts): plans over partition
 * runtimes (or the API's snapshots, for dry runs) and the one refusal error, so a dry run and the real
 * request refuse alike.
 */

/** Offending partitions listed in a refusal's details (its `partitionCount` says how many there are in all). */
const MAX_LISTED = 1000

export interface SkippedPartition {
  topic: string
  partition: number
  state: MirrorPartitionState
}

/** What a topic command answers: the topics it acted on, and the partitions it left alone (only when any). */
export interface CommandResult {
  topics: string[]
  skipped?: SkippedPartition[]
  /** The partitions acted on, when the request named partitions rather than topics. */
  partitions?: Array<{ topic: string; partition: number }>
}

/** Every skipped partition is listed: the answer says exactly what the command left alone. */
export function withSkipped(result: { topics: string[] }, skipped: readonly SkippedPartition[]): CommandResult {
  return skipped.length === 0 ? result : { ...result, skipped: skipped.map((p) => ({ topic: p.topic, partition: p.partition, state: p.state })) }
}

/** INVALID_MIRROR_STATE naming every partition in the way (up to MAX_LISTED) and its state. */
export function refusalError(refusal: CommandRefusal): EngineError {
  return new EngineError('INVALID_MIRROR_STATE', refusal.message, {
    details: {
      command: refusal.command,
      allowedStates: [...refusal.allowedStates],
      partitionCount: refusal.partitions.length,
      partitions: refusal.partitions.slice(0, MAX_LISTED).map((p) => ({ topic: p.topic, partition: p.partition, state: p.state })),
    },
  })
}

function refsOf(runtimes: readonly PartitionRuntime[]) {
  return runtimes.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition, state: runtime.value.state, value: runtime.value, runtime }))
}

/** The command's plan over the engine's partitions; throws (having changed nothing) when it is refused. */
export function planOrRefuse(
  command: MirrorCommand,
  runtimes: readonly PartitionRuntime[],
  options: { named: boolean; mirror: string },
): { apply: PartitionRuntime[]; skipped: SkippedPartition[] } {
  const plan = planCommand(command, refsOf(runtimes), options)
  if (!plan.ok) throw refusalError(plan.refusal)
  const apply = plan.apply.map((ref) => ref.runtime)
  const unsaved = apply.filter((runtime) => !runtime.stateDurable)
  if (unsaved.length > 0) throw unsavedStateRefusal(command, unsaved)
  return { apply, skipped: [...plan.skipped] }
}

/**
 * A command on partitions whose FAILED is shown but not saved (PartitionRuntime.stateDurable): its transition
 * could not be saved either, and a stop must never start from a state a restart would not resume. Refused
 * whole, changing nothing; the same request succeeds once the destination's `__mirror_state` answers again.
 */
function unsavedStateRefusal(command: MirrorCommand, unsaved: readonly PartitionRuntime[]): EngineError {
  const names = unsaved.slice(0, 5).map((runtime) => `${runtime.topic}-${runtime.partition}`)
  const listed = unsaved.length > 5 ? `${names.join(', ')} and ${unsaved.length - 5} more` : names.join(', ')
  return new EngineError(
    'INVALID_MIRROR_STATE',
    `${command} refused: the state of ${listed} is not saved to the destination's __mirror_state yet (the destination does not answer); try again once it is`,
    {
      details: {
        command,
        reason: 'stateNotDurable',
        partitionCount: unsaved.length,
        partitions: unsaved.slice(0, MAX_LISTED).map((runtime) => ({ topic: runtime.topic, partition: runtime.partition, state: runtime.value.state, stateDurable: false })),
      },
    },
  )
}

/** planStart over partitions (runtimes' states or snapshots), or the refusal error. */
export function planStartOrRefuse(
  mirror: string,
  named: readonly string[],
  matched: readonly string[],
  partitions: readonly PartitionStateRef[],
): { topics: readonly string[]; skipped: SkippedPartition[] } {
  const plan = planStart({ mirror, named, matched, partitions })
  if (!plan.ok) throw refusalError(plan.refusal)
  return { topics: plan.topics, skipped: [...plan.skipped] }
}

export function runtimeStates(runtimes: readonly PartitionRuntime[]): PartitionStateRef[] {
  return runtimes.map((runtime) => ({ topic: runtime.topic, partition: runtime.partition, state: runtime.value.state }))
}
