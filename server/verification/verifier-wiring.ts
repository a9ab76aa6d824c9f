import 'server-only'
import path from 'node:path'
import type { Verification, VerificationSummary } from '@/lib/api/verifications'
import { OffsetTranslation } from '@/server/cluster/kafka/offset-translation'
import type { ClusterLinks } from '@/server/cluster/links'
import type { ClusterRegistry } from '@/server/cluster/registry'
import type { MirrorEngine } from '@/server/engine/engine'
import type { Logger } from '@/server/observability/logger'
import { JsonRecordStore } from '@/server/util/json-record-store'
import { IDENTITY_MAPPING } from './partition-comparison'
import { StoredVerification, Verifier, type VerifierOptions } from './verifier'

/**
 * Builds the verifier over the server's clusters and engine (called once by the composition root): mirrors
 * and partitions as the engine shows them, clusters read through their SourceCluster port (the source across
 * the demo's links), Kafka destinations compared by content through their translation table. Every failover
 * that finishes is verified by itself, so its report can say up to which offset each partition is identical.
 */
export async function createVerifier(deps: {
  clusters: ClusterRegistry
  engine: MirrorEngine
  dataDir: string
  log: Logger
  links?: ClusterLinks
  /** A verification changed (the live stream's `verification` event carries its summary). */
  publish: (summary: VerificationSummary) => void
  options?: VerifierOptions
}): Promise<Verifier> {
  const { clusters, engine, links, log } = deps
  const store = await JsonRecordStore.open(path.join(deps.dataDir, 'verifications'), StoredVerification, {
    onDamagedFile: (info) => log.warn('skipped a damaged verification record', info),
  })
  const verifier = new Verifier(
    store,
    {
      now: () => Date.now(),
      log: (message, fields) => log.info(message, fields),
      emit: (verification) => deps.publish(summaryOf(verification)),
      mirror: (name) => {
        const definition = engine.getMirror(name)
        return { ...definition, partitions: engine.partitions(name) }
      },
      reader: (cluster, side) => {
        const { source } = clusters.ports(cluster)
        if (side === 'destination' || !links) return source
        const destinations = () => engine.listMirrors().filter((mirror) => mirror.sourceCluster === cluster).map((mirror) => mirror.destinationCluster)
        return links.remoteSource(source, destinations)
      },
      destination: (cluster) => {
        if (clusters.kind(cluster) === 'embedded') return { mode: 'bytes', mapping: () => IDENTITY_MAPPING }
        return {
          mode: 'content',
          mapping: (tp) => {
            const translation = new OffsetTranslation(clusters.emulation(cluster, tp)?.offsetTranslation ?? [])
            return { toDestination: (offset) => translation.toDestination(offset), toSource: (offset) => translation.toSource(offset) }
          },
        }
      },
    },
    deps.options,
  )
  verifier.recover()
  engine.subscribe((event) => {
    if (event.type !== 'operation' || event.change !== 'finished') return
    const { operation } = event
    const stopped = operation.partitions.filter((entry) => entry.state === 'STOPPED').map(({ topic, partition }) => ({ topic, partition }))
    if (stopped.length === 0) return
    verifier
      .start(operation.mirror, { partitions: stopped, operation: operation.id, requestedBy: null })
      .catch((error: unknown) => log.warn('the verification after a failover could not start', { operation: operation.id, error: error instanceof Error ? error.message : String(error) }))
  })
  return verifier
}

function summaryOf(verification: Verification): VerificationSummary {
  const { partitions: _partitions, ...summary } = verification
  return summary
}
