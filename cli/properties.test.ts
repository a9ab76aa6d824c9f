import { describe, expect, it } from 'vitest'
import { mirrorProperties, parseProperties } from './properties'

describe('--mirror-config, a Java properties file', () => {
  it('reads key=value, key: value and key value, comments, blank lines and continued lines; the last key wins', () => {
    const entries = parseProperties(
      ['# the source', '! also a comment', '', 'source.cluster=us-east', 'destination.cluster : eu-west', 'topics.exclude   __.*,\\', '    tmp.*', 'fetch.max.bytes=1', 'fetch.max.bytes=2048', 'empty='].join('\r\n'),
    )
    expect(Object.fromEntries(entries)).toEqual({ 'source.cluster': 'us-east', 'destination.cluster': 'eu-west', 'topics.exclude': '__.*,tmp.*', 'fetch.max.bytes': '2048', empty: '' })
  })

  it('types mirror configs as the API schema has them: lists split on commas, numbers as numbers', () => {
    const properties = mirrorProperties(parseProperties('source.cluster=a\ntopics.exclude=__.*, tmp.*\nmirror.failed.retry.max.attempts=5\nbootstrap.servers=k1:9092,k2:9092\nsecurity.protocol=SASL_SSL'))
    expect(properties).toEqual({
      sourceCluster: 'a',
      bootstrapServers: ['k1:9092', 'k2:9092'],
      config: { 'topics.exclude': ['__.*', 'tmp.*'], 'mirror.failed.retry.max.attempts': 5 },
      connectionKeys: ['security.protocol'],
    })
  })

  it('refuses a key that is no mirror config, naming the known ones', () => {
    expect(() => mirrorProperties(parseProperties('topics.inclde=orders'))).toThrow(/topics\.inclde is not a mirror config \(known: source\.cluster, destination\.cluster, bootstrap\.servers, topics\.include/)
  })
})
