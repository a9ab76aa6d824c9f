import { describe, expect, it } from 'vitest'
import { CreateTopicRequest } from '@/lib/api/topics'
import { MirrorConfigInput, MirrorObjectives } from '@/lib/api/mirrors'
import { changedConfigInput, createConfigInput, textsOfConfig } from './mirror-config-input'
import { issueAt, issuesOf, numberOrUndefined, parseProperties, splitList } from './form-issues'
import { mirrorDirection } from './mirror-direction'
import { defaultText, MIRROR_CONFIG_FIELDS } from './mirror-config-fields'
import { previewTopics } from './topic-patterns'

describe('form issues from the API schemas', () => {
  it('keys the first message of each field by its path', () => {
    const issues = issuesOf(CreateTopicRequest, { name: 'bad name', partitions: 0, configs: { 'retention.ms': 5 } })
    expect(Object.keys(issues).sort()).toEqual(['configs.retention.ms', 'name', 'partitions'])
    expect(issues.name).toMatch(/A-Z/)
    expect(issueAt(issues, 'configs')).toBeDefined()
    expect(issuesOf(CreateTopicRequest, { name: 'orders', partitions: 3 })).toEqual({})
    expect(issues.partitions).toBe('At least 1')
  })

  it('reads lists, properties and numbers as they are typed', () => {
    expect(splitList(' a, b\n\nc ,')).toEqual(['a', 'b', 'c'])
    expect(parseProperties('retention.ms=1000\n# note\n\nbroken\ncleanup.policy = compact')).toEqual({ values: { 'retention.ms': '1000', 'cleanup.policy': 'compact' }, badLines: [4] })
    expect(numberOrUndefined(' ')).toBeUndefined()
    expect(numberOrUndefined('12')).toBe(12)
    expect(numberOrUndefined('1.5')).toBeNaN()
  })
})

describe('topic pattern preview', () => {
  const sourceTopics = ['orders', 'orders-eu', 'payments', '__consumer_offsets', 'clicks']
  it('matches whole names, applies excludes to pattern matches only, keeps named topics', () => {
    expect(previewTopics({ sourceTopics, named: ['clicks'], include: ['orders.*', '.*s'], exclude: ['__.*', '.*-eu'] })).toEqual({
      taken: ['clicks', 'orders', 'payments'],
      excluded: ['__consumer_offsets', 'orders-eu'],
      invalid: [],
      missing: [],
    })
    // "order" matches nothing: patterns are anchored at both ends, as the server applies them.
    expect(previewTopics({ sourceTopics, named: [], include: ['order'], exclude: [] }).taken).toEqual([])
  })
  it('reports invalid patterns and named topics the source lacks', () => {
    expect(previewTopics({ sourceTopics, named: ['nope'], include: ['('], exclude: [] })).toEqual({ taken: [], excluded: [], invalid: ['('], missing: ['nope'] })
  })
})

describe('mirror direction', () => {
  const mirrors = [
    { name: 'dr', sourceCluster: 'east', destinationCluster: 'west' },
    { name: 'fan', sourceCluster: 'west', destinationCluster: 'north' },
  ]
  it('tells a reverse mirror, a loop through other mirrors, a parallel and a plain one apart', () => {
    expect(mirrorDirection(mirrors, 'west', 'east')).toEqual({ kind: 'reverse', mirrors: ['dr'] })
    expect(mirrorDirection(mirrors, 'north', 'east')).toEqual({ kind: 'loop', path: ['north', 'east', 'west', 'north'] })
    expect(mirrorDirection(mirrors, 'east', 'west')).toEqual({ kind: 'parallel', mirrors: ['dr'] })
    expect(mirrorDirection(mirrors, 'east', 'north')).toEqual({ kind: 'plain' })
    expect(mirrorDirection(mirrors, 'east', 'east')).toEqual({ kind: 'same-cluster' })
  })
})

describe('mirror config fields', () => {
  it('say their defaults, summing up long lists', () => {
    const byKey = (key: string) => MIRROR_CONFIG_FIELDS.find((field) => field.key === key)!
    expect(defaultText(byKey('groups.include'))).toBe('.*')
    expect(defaultText(byKey('groups.exclude'))).toBe('(none)')
    expect(defaultText(byKey('mirror.metadata.refresh.interval.ms'))).toBe('60000')
    expect(defaultText(byKey('topic.properties.exclude'))).toMatch(/^10 entries \(follower\.replication\.throttled\.replicas, /)
  })
  it('cover every setting the API accepts, each once, the objectives one box each', () => {
    const keys = MIRROR_CONFIG_FIELDS.map((field) => field.key)
    expect([...new Set(keys.map((key) => (key.startsWith('objectives.') ? 'objectives' : key)))].sort()).toEqual(Object.keys(MirrorConfigInput.shape).sort())
    expect(keys.filter((key) => key.startsWith('objectives.')).map((key) => key.slice('objectives.'.length)).sort()).toEqual(Object.keys(MirrorObjectives.shape).sort())
    expect(new Set(keys).size).toBe(keys.length)
  })
  it('make one objectives object of the objective boxes: fractions where the API takes them, null when all are emptied', () => {
    expect(createConfigInput({ 'objectives.rpoRecords': '100', 'objectives.drillIntervalDays': '7.5', 'objectives.rtoSeconds': ' ' })).toEqual({ objectives: { rpoRecords: 100, drillIntervalDays: 7.5 } })
    expect(MirrorConfigInput.safeParse(createConfigInput({ 'objectives.rpoRecords': '1.5' })).success).toBe(false)
    const current = { 'fetch.max.bytes': 1024, objectives: { rpoRecords: 100, rpoSeconds: 30 } }
    const texts = textsOfConfig(current)
    expect(texts['objectives.rpoRecords']).toBe('100')
    expect(texts['objectives.rtoSeconds']).toBe('')
    expect(changedConfigInput(current, texts)).toEqual({})
    expect(changedConfigInput(current, { ...texts, 'objectives.rpoSeconds': '60' })).toEqual({ objectives: { rpoRecords: 100, rpoSeconds: 60 } })
    expect(changedConfigInput(current, { ...texts, 'objectives.rpoSeconds': '', 'objectives.rpoRecords': '' })).toEqual({ objectives: null })
    expect(changedConfigInput({}, { 'objectives.drillIntervalDays': '14' })).toEqual({ objectives: { drillIntervalDays: 14 } })
  })
  it('send only filled boxes on create and only changed keys on update', () => {
    expect(createConfigInput({ 'fetch.max.bytes': ' 2048 ', 'groups.include': 'billing.*\nops', 'topics.exclude': '' })).toEqual({ 'fetch.max.bytes': 2048, 'groups.include': ['billing.*', 'ops'] })
    const current = { 'fetch.max.bytes': 1024, 'groups.exclude': [], 'topics.include': ['orders.*'] }
    const texts = { ...textsOfConfig(current), 'fetch.max.bytes': '1024', 'topics.include': '' }
    expect(changedConfigInput(current, texts)).toEqual({ 'topics.include': [] })
    const refused = changedConfigInput(current, { 'fetch.max.bytes': '' })
    expect(MirrorConfigInput.safeParse(refused).success).toBe(false)
  })
})
