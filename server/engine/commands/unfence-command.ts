import 'server-only'
import { withTimeout } from '@/server/util/with-timeout'
import type { WriteFence } from '@/server/cluster/ports'
import type { ClusterAccess, PartitionStore } from '../engine-context'
import { EngineError } from '../errors'
import { errorMessage } from '../failure-classification'

/** A source that does not answer this soon is SOURCE_UNAVAILABLE: the fence is where it was. */
const SOURCE_TIMEOUT_MS = 10_000

export interface UnfenceInput {
  /** Only these topics' fences; all of the mirror's when absent. */
  readonly topics?: readonly string[]
  readonly confirm: string
}

/**
 * The operator's explicit unfence (issue #34): lifts the write fences a mirror's planned switchover left on its
 * source, so the old source takes client writes again without a failback. Only this mirror's fences (a fence is
 * liftable only by the mirror that set it); refused with CONFLICT while an operation of the mirror runs (a
 * switchover's rollback lifts its own fence; lifting it mid-drain would let writes in that the drain misses).
 * The caller holds the mirror's command lane, so nothing starts a switchover meanwhile.
 */
export async function unfenceMirror(ctx: ClusterAccess & PartitionStore & { refuseIfRunning(mirror: string): void }, name: string, input: UnfenceInput): Promise<{ sourceCluster: string; unfenced: WriteFence[] }> {
  const { definition } = ctx.state.require(name)
  if (input.confirm !== name) throw new EngineError('CONFIRMATION_REQUIRED', `type the mirror name "${name}" as confirm to lift its write fences`)
  ctx.refuseIfRunning(name)
  const source = ctx.clusters.cluster(definition.sourceCluster).source
  // A source that cannot fence (a Kafka cluster without an authorizer) has no fence to lift.
  if (source.writeFences === undefined || source.unfenceWrites === undefined) return { sourceCluster: definition.sourceCluster, unfenced: [] }
  const wanted = input.topics === undefined ? null : new Set(input.topics)
  try {
    const fences = (await withTimeout(source.writeFences(), SOURCE_TIMEOUT_MS)).filter((fence) => fence.mirror === name && (wanted === null || wanted.has(fence.topic)))
    if (fences.length > 0) await withTimeout(source.unfenceWrites(fences.map((fence) => fence.topic), name), SOURCE_TIMEOUT_MS)
    return { sourceCluster: definition.sourceCluster, unfenced: fences }
  } catch (error) {
    throw new EngineError('SOURCE_UNAVAILABLE', `source cluster ${definition.sourceCluster} did not lift the fences of mirror ${name}: ${errorMessage(error)}`, { cause: error })
  }
}

/**
 * The fences `name`'s planned switchover keeps on its source, read from the source now (what the mirror page shows
 * beside its unfence). SOURCE_UNAVAILABLE when the source does not answer: an unknown fence is never shown as none.
 */
export async function mirrorFences(ctx: ClusterAccess & PartitionStore, name: string): Promise<{ sourceCluster: string; fences: WriteFence[] }> {
  const { definition } = ctx.state.require(name)
  const source = ctx.clusters.cluster(definition.sourceCluster).source
  if (source.writeFences === undefined) return { sourceCluster: definition.sourceCluster, fences: [] }
  try {
    const fences = await withTimeout(source.writeFences(), SOURCE_TIMEOUT_MS)
    return { sourceCluster: definition.sourceCluster, fences: fences.filter((fence) => fence.mirror === name).sort((x, y) => x.topic.localeCompare(y.topic)) }
  } catch (error) {
    throw new EngineError('SOURCE_UNAVAILABLE', `source cluster ${definition.sourceCluster} did not say which topics mirror ${name} fences: ${errorMessage(error)}`, { cause: error })
  }
}
