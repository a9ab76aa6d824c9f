import { describe, expect, it } from 'vitest'
import {
  ALWAYS_EXCLUDED_TOPIC_PROPERTIES,
  BROKER_MIRROR_CONFIG_DEFAULTS,
  DEFAULT_RETRY_CONFIG,
  DEFAULT_TOPIC_PROPERTIES_EXCLUDE,
  LEADER_EPOCH_BUMP_INCREMENT,
  LEADER_EPOCH_BUMP_THRESHOLD,
  MIRROR_CONFIG_DEFAULTS,
  NON_RETRYABLE_ATTEMPT,
} from './constants'

describe('KIP-1279 constants', () => {
  it('uses the prototype epoch bump threshold and increment and the non-retryable marker', () => {
    expect(LEADER_EPOCH_BUMP_THRESHOLD).toBe(3)
    expect(LEADER_EPOCH_BUMP_INCREMENT).toBe(10)
    expect(NON_RETRYABLE_ATTEMPT).toBe(-1)
  })

  it('retries from 100 ms to 300 s, 20 attempts, in both the retry config and the broker keys', () => {
    expect(DEFAULT_RETRY_CONFIG).toEqual({ initialBackoffMs: 100, maxBackoffMs: 300_000, maxAttempts: 20 })
    expect(BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.initial.backoff.ms']).toBe(100)
    expect(BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.max.backoff.ms']).toBe(300_000)
    expect(BROKER_MIRROR_CONFIG_DEFAULTS['mirror.failed.retry.max.attempts']).toBe(20)
    expect(BROKER_MIRROR_CONFIG_DEFAULTS['mirror.metadata.refresh.interval.ms']).toBe(60_000)
  })

  it('#33 excludes internal topics by default (topics.exclude = __.*)', () => {
    expect(MIRROR_CONFIG_DEFAULTS['topics.exclude']).toEqual(['__.*'])
    const pattern = new RegExp(`^(?:${MIRROR_CONFIG_DEFAULTS['topics.exclude'][0]})$`)
    expect(pattern.test('__consumer_offsets')).toBe(true)
    expect(pattern.test('__mirror_state')).toBe(true)
    expect(pattern.test('orders')).toBe(false)
  })

  it('#32 never copies the replication and client-facing configs listed in KIP §1.4', () => {
    expect(DEFAULT_TOPIC_PROPERTIES_EXCLUDE).toHaveLength(10)
    expect(DEFAULT_TOPIC_PROPERTIES_EXCLUDE).toContain('min.insync.replicas')
    expect(DEFAULT_TOPIC_PROPERTIES_EXCLUDE).toContain('unclean.leader.election.enable')
    expect(DEFAULT_TOPIC_PROPERTIES_EXCLUDE).toContain('mirror.support.unclean.leader.election')
    expect(MIRROR_CONFIG_DEFAULTS['topic.properties.exclude']).toEqual(DEFAULT_TOPIC_PROPERTIES_EXCLUDE)
    expect(ALWAYS_EXCLUDED_TOPIC_PROPERTIES).toEqual(['mirror.name', 'remote.storage.enable'])
  })

  it('fetches with the mirror-level defaults of KIP §7.3', () => {
    expect(MIRROR_CONFIG_DEFAULTS).toMatchObject({
      'fetch.wait.max.ms': 1000,
      'fetch.min.bytes': 1,
      'fetch.max.bytes': 1_048_576,
      'fetch.response.max.bytes': 10_485_760,
      'groups.include': ['.*'],
      'acls.include': ['*'],
      'topics.include': [],
    })
  })
})
