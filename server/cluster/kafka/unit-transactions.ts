import 'server-only'
import type { Kafka, Message, Producer } from 'kafkajs'
import { ClusterError } from '../errors'

/**
 * Kafka's zombie fencing for the records that describe one unit of work (issue #40: a mirror's partition states on
 * its destination's state topic, its operations on the control cluster), as Kafka Connect fences its tasks: each
 * unit writes through a transactional producer of its own whose transactional id names the unit, every write one
 * transaction. The instance that takes the unit over `claim`s it first: its InitProducerId bumps the id's epoch, which
 * aborts whatever transaction the old owner left open and makes the coordinator refuse the old owner's next write
 * (PRODUCER_FENCED / INVALID_PRODUCER_EPOCH), so nothing it writes after that becomes readable to a read_committed
 * reader. A unit is never initialised again here by itself once this instance had a producer for it, since that
 * would fence whoever owns it now back: a fenced unit, and one whose producer became unusable (a write failed and its
 * transaction could not be aborted: the broker unreachable, this instance perhaps cut off while the group moved the
 * unit on), stays refused until this instance claims it again (the group handed it back, after the owner's
 * `onFenced` gave it up), and `onFenced` says so once, with the reason.
 */

/** Kafka's transaction.timeout.ms for these short transactions: a dead writer's open one blocks readers no longer. */
const TRANSACTION_TIMEOUT_MS = 30_000

const FENCING_TYPES = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH'])

/** Whether kafkajs refused the write because another producer initialised the same transactional id (code 47 or 90). */
export function isProducerFenced(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause !== null && typeof cause === 'object' && depth < 5; depth++) {
    const { type, message } = cause as { type?: unknown; message?: unknown }
    if (typeof type === 'string' && FENCING_TYPES.has(type)) return true
    // kafkajs 2.2.4 does not know PRODUCER_FENCED (90, Kafka 2.7+) by name.
    if (typeof message === 'string' && /Unknown error code 90\b/.test(message)) return true
    const next = cause as { cause?: unknown; originalError?: unknown }
    cause = next.originalError ?? next.cause
  }
  return false
}

export interface UnitFenced {
  unit: string
  transactionalId: string
  error: ClusterError
  /**
   * `fenced`: another producer initialised the id (another instance claimed the unit). `producerLost`: this instance's
   * producer became unusable mid-transaction; whether the unit is still this instance's is for the group to say.
   */
  reason: 'fenced' | 'producerLost'
}

interface UnitProducer {
  producer: Producer
  /** Initialised: InitProducerId answered (a claim, or the first write). */
  ready: Promise<void>
}

export class UnitTransactions {
  private readonly producers = new Map<string, UnitProducer>()
  private readonly fenced = new Map<string, ClusterError>()
  /** One write (or claim) at a time per unit: kafkajs runs one transaction per producer. */
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(
    private readonly client: (suffix: string) => Kafka,
    /** The transactional id of a unit (it must name the unit the same way on every instance). */
    private readonly transactionalIdOf: (unit: string) => string,
    private readonly onFenced: (fenced: UnitFenced) => void,
  ) {}

  /** Whether this instance's writes of `unit` were fenced (until it claims the unit again). */
  fencedError(unit: string): ClusterError | null {
    return this.fenced.get(unit) ?? null
  }

  /**
   * This instance now owns `unit`: a producer of its own, initialised now, fences every earlier writer of the unit
   * (another instance, or this one before it lost the unit) and aborts their open transaction.
   */
  claim(unit: string): Promise<void> {
    return this.serial(unit, async () => {
      const old = this.producers.get(unit)
      this.producers.delete(unit)
      this.fenced.delete(unit)
      await old?.producer.disconnect().catch(() => undefined)
      await this.producerOf(unit).ready
    })
  }

  /**
   * Writes `messages` to `topic` in one transaction of `unit`'s producer; resolves once committed, with the offset of
   * the last record written (its COMMIT marker follows it). Refused with INVALID_PRODUCER_EPOCH, writing nothing
   * readable, once another instance has claimed the unit.
   */
  send(unit: string, topic: string, messages: Message[]): Promise<number> {
    return this.serial(unit, async () => {
      const already = this.fenced.get(unit)
      if (already) throw already
      const { producer, ready } = this.producerOf(unit)
      // Whether the producer is still usable under its epoch after a failure (its transaction aborted).
      let aborted = false
      try {
        await ready
        const transaction = await producer.transaction()
        try {
          const answers = await transaction.send({ topic, acks: -1, messages })
          await transaction.commit()
          // One partition per write (the topics written this way have one).
          return Math.max(-1, ...answers.map((answer) => Number(answer.baseOffset ?? answer.offset ?? -1) + messages.length - 1))
        } catch (error) {
          aborted = await transaction.abort().then(
            () => true,
            (abortError: unknown) => {
              // Fenced as it aborts: the unit is another instance's (below), whatever the send's own error was.
              if (isProducerFenced(abortError)) throw abortError
              return false
            },
          )
          throw error
        }
      } catch (error) {
        const transactionalId = this.transactionalIdOf(unit)
        if (!isProducerFenced(error)) {
          // Kept when its transaction could be aborted: a new producer's InitProducerId would fence whoever claimed the
          // unit meanwhile (this instance cut off while the group moved on).
          if (aborted) throw error
          // Unusable, and not to be replaced by an InitProducerId of this instance's own accord (above): the unit is
          // refused here until claimed again, and its owner gives it back to the group to be placed afresh.
          const lost = new ClusterError('CLUSTER_CONNECTION_FAILED', `the transactional producer ${transactionalId} of ${unit} failed mid-transaction and its transaction could not be aborted: ${unit} is refused here until it is claimed again`, {
            cause: error,
            details: { unit, transactionalId },
          })
          this.refuse(unit, producer, { unit, transactionalId, error: lost, reason: 'producerLost' })
          throw error
        }
        const refused = new ClusterError('INVALID_PRODUCER_EPOCH', `fenced: another instance took ${unit} over (its producer initialised ${transactionalId} after this one); this write was not applied`, {
          cause: error,
          details: { unit, transactionalId },
        })
        this.refuse(unit, producer, { unit, transactionalId, error: refused, reason: 'fenced' })
        throw refused
      }
    })
  }

  private refuse(unit: string, producer: Producer, refusal: UnitFenced): void {
    this.fenced.set(unit, refusal.error)
    this.drop(unit, producer)
    this.onFenced(refusal)
  }

  private drop(unit: string, producer: Producer): void {
    if (this.producers.get(unit)?.producer === producer) this.producers.delete(unit)
    void producer.disconnect().catch(() => undefined)
  }

  private producerOf(unit: string): UnitProducer {
    let entry = this.producers.get(unit)
    if (!entry) {
      const transactionalId = this.transactionalIdOf(unit)
      const producer = this.client(`unit-${unit}`).producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: TRANSACTION_TIMEOUT_MS, allowAutoTopicCreation: false })
      // kafkajs sends InitProducerId at the first transaction(); ending the empty one sends nothing more.
      const ready = producer.connect().then(async () => (await producer.transaction()).abort())
      entry = { producer, ready }
      ready.catch(() => {
        if (this.producers.get(unit) === entry) this.producers.delete(unit)
        void producer.disconnect().catch(() => undefined)
      })
      this.producers.set(unit, entry)
    }
    return entry
  }

  private serial<T>(unit: string, action: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(unit) ?? Promise.resolve()).catch(() => undefined).then(action)
    const settled = run.catch(() => undefined)
    this.queues.set(unit, settled)
    void settled.then(() => {
      if (this.queues.get(unit) === settled) this.queues.delete(unit)
    })
    return run
  }

  async close(): Promise<void> {
    const producers = [...this.producers.values()]
    this.producers.clear()
    await Promise.allSettled(producers.map(({ producer }) => producer.disconnect()))
  }
}
