import { describe, expect, it } from 'vitest'
import { readRuntimeConfig } from './config'

const env = (more: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: 'test', ...more })

describe('readRuntimeConfig', () => {
  it('keeps the clusters per-partition gauges in /api/metrics unless MIRRORBOARD_METRICS_CLUSTER_PARTITIONS=0', () => {
    expect(readRuntimeConfig(env({})).metricsClusterPartitions).toBe(true)
    expect(readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: '1' })).metricsClusterPartitions).toBe(true)
    expect(readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: ' 0 ' })).metricsClusterPartitions).toBe(false)
    expect(() => readRuntimeConfig(env({ MIRRORBOARD_METRICS_CLUSTER_PARTITIONS: 'false' }))).toThrow('MIRRORBOARD_METRICS_CLUSTER_PARTITIONS must be 1 or 0, not "false"')
  })
})
