import type { MirrorFigures } from '../figures'

/** @internal Figures of a healthy mirror `dr` for the alert tests, and of the same mirror with one FAILED partition. */
export const CALM_FIGURES: MirrorFigures = {
  mirror: 'dr',
  partitionsByState: { MIRRORING: 2 },
  failedExamples: [],
  totalOffsetLag: 0,
  maxTimeLagSeconds: 0,
  maxFetchAgeSeconds: 0.2,
  staleFetchPartitions: 0,
  rpo: { records: 0, seconds: 0, known: true },
  rpoObjective: null,
  splitBrainRecords: 0,
  failedOperation: null,
  drills: null,
}

export const ONE_FAILED_FIGURES: MirrorFigures = {
  ...CALM_FIGURES,
  partitionsByState: { MIRRORING: 1, FAILED: 1 },
  failedExamples: [{ topic: 'orders', partition: 0, error: 'source unreachable' }],
}
