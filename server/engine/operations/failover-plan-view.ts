import 'server-only'
import type { FailoverPlan as ApiFailoverPlan } from '@/lib/api/mirrors'
import type { FailoverPreflight } from '@/lib/mirror/failover-plan'

/** The engine's failover plan in the API's shape: what a dry run answers and what an operation keeps on disk. */
export function toFailoverPlan(plan: FailoverPreflight): ApiFailoverPlan {
  return {
    mirror: plan.mirror,
    ...(plan.rpo === undefined ? {} : { rpo: { objective: { ...plan.rpo.objective }, records: plan.rpo.records, seconds: plan.rpo.seconds, known: plan.rpo.known, status: plan.rpo.status } }),
    canProceed: plan.canProceed,
    gates: plan.gates.map((gate) => ({ name: gate.name, ok: gate.ok, severity: gate.severity, detail: gate.detail })),
    partitions: plan.partitions.map((partition) => ({
      topic: partition.topic,
      partition: partition.partition,
      state: partition.state,
      action: partition.action,
      mirroredOffset: partition.mirroredOffset,
      sourceLogEndOffset: partition.sourceLogEndOffset,
      recordsAtRisk: partition.recordsAtRisk,
      timeAtRiskMs: partition.timeAtRiskMs,
      atRisk: { ...partition.atRisk },
      transactionsToAbort: partition.transactionsToAbort.map(({ producerId, producerEpoch, firstOffset }) => ({ producerId, producerEpoch, firstOffset })),
      consumerGroupsBehind: partition.consumerGroupsBehind.map((group) => ({ ...group })),
    })),
  }
}
