import 'server-only'
import { EngineError } from '../errors'

/**
 * The engine's command discipline, in one place (the shape of Kafka's controller event queue): every
 * operator command on a mirror (create, config, delete, start, pause, resume, recover, failover, and any
 * command added later) is submitted here and runs alone on that mirror, in arrival order, with its
 * state-version precondition checked first. The check and the change it guards see the same state, and two
 * operators' requests never interleave half-applied. Mirrors are independent of each other.
 *
 * Every caller gets this: the HTTP API, the demo's scenarios, scripts and tests all call the engine's command
 * methods (engine.ts), which submit here. A new command is one more `submit` in the facade.
 */

/** What the caller read of the mirror: KIP-1279's StateOffset as our state version (commands/state-version.ts). */
export interface StateVersionCondition {
  /** The versions the caller accepts (an If-Match of several tags); none matches when empty. */
  readonly anyOf: readonly string[]
  /** The condition as the caller sent it (an If-Match header), quoted back in the refusal. */
  readonly asSent: string
}

/** A command's preconditions, passed with its arguments. */
export interface CommandConditions {
  /** Refused with PRECONDITION_FAILED, changing nothing, unless the mirror's current state version is one of these. */
  readonly stateVersion?: StateVersionCondition
}

export interface MirrorCommand<T> {
  /** What the command is (`pause`, `failover`...): names a pending command in a refusal. */
  readonly kind: string
  readonly mirror: string
  readonly conditions?: CommandConditions | undefined
  /**
   * Refused at once (CONFLICT) rather than queued while another command that starts an operation is pending on
   * the mirror: a double click or a second tab must not plan a second failover behind the first.
   */
  readonly startsOperation?: boolean
  /** The work, run once every earlier command of the mirror has finished and the conditions hold. */
  run(): Promise<T>
  /** A command that goes on after it answers (an operation) keeps the mirror's next command waiting until this settles. */
  holdUntil?(value: T): Promise<unknown>
}

/**
 * Throws PRECONDITION_FAILED (changing nothing) when `conditions` name a state version the mirror no longer has.
 * Dry runs call it too, so a plan is answered only for the version the caller read.
 */
export function checkConditions(mirror: string, conditions: CommandConditions | undefined, currentStateVersion: () => string): void {
  const wanted = conditions?.stateVersion
  if (wanted === undefined) return
  const current = currentStateVersion()
  if (wanted.anyOf.includes(current)) return
  const asSent = wanted.asSent.slice(0, 200)
  throw new EngineError('PRECONDITION_FAILED', `mirror ${mirror} changed since that version was read (If-Match ${asSent}); read it again`, {
    details: { ifMatch: asSent, stateVersion: current },
  })
}

interface MirrorLane {
  /** Settles when the last command submitted (and what it holds) has finished. */
  tail: Promise<void>
  /** Commands submitted that start an operation and have not answered yet. */
  startingOperations: string[]
}

export class MirrorCommandQueue {
  private readonly lanes = new Map<string, MirrorLane>()

  /** `stateVersion(mirror)`: the mirror's current state version (NOT_FOUND for an unknown mirror). */
  constructor(private readonly stateVersion: (mirror: string) => string) {}

  /** Async, so a refusal is a rejected promise like any other; the queueing itself happens before the first await. */
  async submit<T>(command: MirrorCommand<T>): Promise<T> {
    let lane = this.lanes.get(command.mirror)
    if (lane === undefined) this.lanes.set(command.mirror, (lane = { tail: Promise.resolve(), startingOperations: [] }))
    if (command.startsOperation) {
      const [pending] = lane.startingOperations
      if (pending !== undefined) throw new EngineError('CONFLICT', `a ${pending} of mirror ${command.mirror} is being started right now`)
      lane.startingOperations.push(command.kind)
    }
    const owner = lane
    const result = owner.tail.then(async () => {
      checkConditions(command.mirror, command.conditions, () => this.stateVersion(command.mirror))
      return command.run()
    })
    if (command.startsOperation) {
      const answered = () => owner.startingOperations.splice(owner.startingOperations.indexOf(command.kind), 1)
      result.then(answered, answered)
    }
    const tail = result
      .then(
        (value) => command.holdUntil?.(value),
        () => undefined,
      )
      .then(
        () => undefined,
        () => undefined,
      )
    owner.tail = tail
    void tail.then(() => {
      if (owner.tail === tail && owner.startingOperations.length === 0) this.lanes.delete(command.mirror)
    })
    return result
  }

  /** Resolves once the commands submitted so far for this mirror have finished. */
  async idleOf(mirror: string): Promise<void> {
    await this.lanes.get(mirror)?.tail
  }

  /** Resolves once every command submitted so far, and what each holds, has finished (close, tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.tail))
  }
}
