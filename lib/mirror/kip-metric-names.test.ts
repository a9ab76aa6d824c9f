import { describe, expect, it } from 'vitest'
import { kipStateGauge } from './kip-metric-names'
import { MIRROR_PARTITION_STATES } from './states'

describe('the prototype gauge of each state', () => {
  it("is named after the state's voted name, none for UNKNOWN", () => {
    expect(MIRROR_PARTITION_STATES.map(kipStateGauge)).toEqual([
      null,
      'LogAlignmentPartitionState',
      'EpochFencingPartitionState',
      'UleRecoveryPartitionState',
      'MirroringPartitionState',
      'PausingPartitionState',
      'PausedPartitionState',
      'StoppingPartitionState',
      'StoppedPartitionState',
      'FailedPartitionState',
    ])
  })
})
