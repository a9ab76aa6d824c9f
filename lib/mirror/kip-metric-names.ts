import { STATE_METADATA } from './state-metadata'
import type { MirrorPartitionState } from './states'

/**
 * The prototype's broker gauge counting a state's partitions (KafkaMetricsGroup of MirrorMetadataManager,
 * KIP-1279.md §8), named after the state's voted name: `LogAlignmentPartitionState` for PREPARING,
 * `UleRecoveryPartitionState` for ULE_LOG_TRUNCATION. UNKNOWN, the absence of a state, has none. Our metrics keep
 * our names and say these in their help text.
 */
export function kipStateGauge(state: MirrorPartitionState): string | null {
  if (state === 'UNKNOWN') return null
  const words = STATE_METADATA[state].kipName.toLowerCase().split('_')
  return `${words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}PartitionState`
}
