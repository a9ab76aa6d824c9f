import 'server-only'
import { ALWAYS_EXCLUDED_TOPIC_PROPERTIES, DEFAULT_TOPIC_PROPERTIES_EXCLUDE, MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION } from '@/lib/mirror/constants'
import { isValidName, NAME_PATTERN } from '@/lib/mirror/names'
import { DEFAULT_THROTTLED_REPLICAS, throttledReplicaEntryProblem, UNTHROTTLED_RATE } from '@/lib/mirror/replication-throttle'
import { EngineError } from '../errors'
import type { ResolvedMirrorConfig } from '../types'
import { compilePattern } from './topic-patterns'

export const DEFAULT_MIRROR_CONFIG: ResolvedMirrorConfig = {
  'topics.include': [],
  'topics.exclude': ['__.*'],
  'groups.include': ['.*'],
  'groups.exclude': [],
  'topic.properties.exclude': [...DEFAULT_TOPIC_PROPERTIES_EXCLUDE],
  'fetch.max.bytes': 1024 * 1024,
  'fetch.response.max.bytes': 10 * 1024 * 1024,
  'mirror.metadata.refresh.interval.ms': 60_000,
  'mirror.failed.retry.initial.backoff.ms': 100,
  'mirror.failed.retry.max.backoff.ms': 300_000,
  'mirror.failed.retry.max.attempts': 20,
  'mirror.replication.throttled.rate': UNTHROTTLED_RATE,
  'mirror.replication.throttled.replicas': [...DEFAULT_THROTTLED_REPLICAS],
}

/** Defaults, then the given config, then topicsInclude/topicsExclude; every pattern and number checked. */
const OBJECTIVE_KEYS = ['rpoSeconds', 'rpoRecords', 'rtoSeconds', 'drillIntervalDays'] as const

/**
 * Objectives as set: each a finite non-negative number (rpoRecords whole, drillIntervalDays above 0), no other
 * key; null or an empty object removes them. The API's schema refuses the same before this is reached;
 * this holds for every other caller (the demo, scripts).
 */
function resolveObjectives(value: unknown): ResolvedMirrorConfig['objectives'] | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) throw new EngineError('VALIDATION_FAILED', 'objectives must be an object')
  const objectives: NonNullable<ResolvedMirrorConfig['objectives']> = {}
  for (const [key, number] of Object.entries(value)) {
    if (!(OBJECTIVE_KEYS as readonly string[]).includes(key)) throw new EngineError('VALIDATION_FAILED', `objectives.${key} is not an objective (${OBJECTIVE_KEYS.join(', ')})`)
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || (key === 'rpoRecords' && !Number.isSafeInteger(number)) || (key === 'drillIntervalDays' && number === 0)) {
      const wanted = key === 'drillIntervalDays' ? 'a number above 0' : key === 'rpoRecords' ? 'a whole number of at least 0' : 'a number of at least 0'
      throw new EngineError('VALIDATION_FAILED', `objectives.${key} must be ${wanted}`)
    }
    objectives[key as (typeof OBJECTIVE_KEYS)[number]] = number
  }
  return Object.keys(objectives).length > 0 ? objectives : undefined
}

export function resolveConfig(input: { topicsInclude?: string[]; topicsExclude?: string[]; config?: Partial<Omit<ResolvedMirrorConfig, 'objectives'>> & { objectives?: ResolvedMirrorConfig['objectives'] | null } }): ResolvedMirrorConfig {
  const { objectives: objectivesInput, ...rest } = { ...DEFAULT_MIRROR_CONFIG, ...input.config }
  const config: ResolvedMirrorConfig = rest
  const objectives = resolveObjectives(objectivesInput)
  if (objectives !== undefined) config.objectives = objectives
  if (input.topicsInclude) config['topics.include'] = input.topicsInclude
  if (input.topicsExclude) config['topics.exclude'] = input.topicsExclude
  for (const key of ['topics.include', 'topics.exclude', 'groups.include', 'groups.exclude'] as const) {
    for (const pattern of config[key]) compilePattern(pattern)
  }
  for (const key of ['fetch.max.bytes', 'fetch.response.max.bytes', 'mirror.metadata.refresh.interval.ms', 'mirror.failed.retry.initial.backoff.ms', 'mirror.failed.retry.max.backoff.ms', 'mirror.failed.retry.max.attempts'] as const) {
    const value = config[key]
    if (!Number.isSafeInteger(value) || value < 0 || (key !== 'mirror.failed.retry.max.attempts' && value === 0)) {
      throw new EngineError('VALIDATION_FAILED', `${key} must be a positive integer`)
    }
  }
  if (config['mirror.failed.retry.initial.backoff.ms'] > config['mirror.failed.retry.max.backoff.ms']) {
    throw new EngineError('VALIDATION_FAILED', 'mirror.failed.retry.initial.backoff.ms must not exceed mirror.failed.retry.max.backoff.ms')
  }
  const rate = config['mirror.replication.throttled.rate']
  if (!Number.isSafeInteger(rate) || rate < 0) throw new EngineError('VALIDATION_FAILED', 'mirror.replication.throttled.rate must be a non-negative integer (bytes per second, 0: no throttle)')
  const problem = config['mirror.replication.throttled.replicas'].map(throttledReplicaEntryProblem).find((entry) => entry !== null)
  if (problem) throw new EngineError('VALIDATION_FAILED', `mirror.replication.throttled.replicas: ${problem}`)
  return config
}

/**
 * The source topic configs a mirror topic takes: all but topic.properties.exclude, the ones never synced,
 * and the destination's own mirror.support.unclean.leader.election. One copy for topic creation and the sync.
 */
export function syncedTopicConfigs(configs: Record<string, string>, config: ResolvedMirrorConfig): Record<string, string> {
  const excluded = new Set<string>([...config['topic.properties.exclude'], ...ALWAYS_EXCLUDED_TOPIC_PROPERTIES, MIRROR_SUPPORT_UNCLEAN_LEADER_ELECTION])
  return Object.fromEntries(Object.entries(configs).filter(([key]) => !excluded.has(key)))
}

export function assertName(name: string, what: string): void {
  if (!isValidName(name)) throw new EngineError('VALIDATION_FAILED', `${what} name must match ${NAME_PATTERN.source} and not be "." or ".."`)
}
