import 'server-only'
import { EngineError } from '../errors'
import type { EngineEvent, MirrorDefinition, PartitionRuntime } from '../types'
import type { FailureCode } from '@/lib/mirror/failure-code'
import type { MirrorPartitionValue } from '@/lib/mirror/partition'
import { newEngineMirror, type EngineMirror } from './engine-mirror'
import { PartitionChanges } from './partition-changes'
import { newPartitionRuntime } from './partition-runtime'

/**
 * The engine's mirrors and the one place their events are published. Every part of the engine (fetcher,
 * syncs, commands, failover, queries) reads mirrors from here; listeners see each event once, and one
 * failing listener never stops the others.
 */
export class EngineState {
  private readonly mirrors = new Map<string, EngineMirror>()
  private readonly listeners = new Set<(event: EngineEvent) => void>()
  /** Every change of every partition runtime, as changePartition publishes it. */
  readonly changes = new PartitionChanges()

  constructor(
    private readonly hooks: {
      now(): number
      log(message: string, fields: Record<string, unknown>): void
      /** Called before listeners for every partition event (the operation tracker follows its partitions). */
      onPartitionEvent(mirror: string, topic: string, partition: number): void
    },
  ) {}

  get(name: string): EngineMirror | undefined {
    return this.mirrors.get(name)
  }

  has(name: string): boolean {
    return this.mirrors.has(name)
  }

  /** NOT_FOUND for a mirror the engine does not hold. */
  require(name: string): EngineMirror {
    const mirror = this.mirrors.get(name)
    if (!mirror) throw new EngineError('NOT_FOUND', `mirror ${name} not found`)
    return mirror
  }

  all(): IterableIterator<EngineMirror> {
    return this.mirrors.values()
  }

  /** Adds a mirror with no partitions yet; its first sync is due now. */
  add(definition: MirrorDefinition): EngineMirror {
    const mirror = newEngineMirror(definition, this.hooks.now())
    this.mirrors.set(definition.name, mirror)
    return mirror
  }

  delete(name: string): void {
    this.mirrors.delete(name)
  }

  /** A partition's runtime, once held by the engine (the operation tracker follows partitions by name). */
  partition(mirror: string, topic: string, partition: number): PartitionRuntime | undefined {
    return this.mirrors.get(mirror)?.partitions.get({ topic, partition })
  }

  /** A runtime for a partition the engine starts holding (the caller adds it to its mirror), publishing to `changes`. */
  newPartition(
    key: { mirror: string; topic: string; topicId: string; partition: number },
    value: MirrorPartitionValue,
    restored: { destinationLeaderEpoch?: number; failureCode?: FailureCode | null } = {},
  ): PartitionRuntime {
    return newPartitionRuntime(this.changes, key, value, restored)
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit(event: EngineEvent): void {
    if (event.type === 'partition') this.hooks.onPartitionEvent(event.mirror, event.topic, event.partition)
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        this.hooks.log('listener failed', { error: String(error) })
      }
    }
  }
}
