import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { guardedSocketFactory, HostAllowlist } from './allowed-hosts'

describe('HostAllowlist (issue #41 item 6: MIRRORBOARD_KAFKA_ALLOWED_HOSTS)', () => {
  it('allows every host when unset or empty', () => {
    expect(HostAllowlist.parse(undefined)).toBeNull()
    expect(HostAllowlist.parse(' , ')).toBeNull()
  })

  it('matches hosts, host:port, *.domain and bracketed IPv6, case-insensitively', () => {
    const list = HostAllowlist.parse('kafka-1.prod.example:9092, *.kafka.internal, 10.0.0.5, [::1]:9093')
    expect(list?.allows('kafka-1.prod.example', 9092)).toBe(true)
    expect(list?.allows('KAFKA-1.prod.example', 9092)).toBe(true)
    expect(list?.allows('kafka-1.prod.example', 9093)).toBe(false)
    expect(list?.allows('b3.kafka.internal', 19092)).toBe(true)
    expect(list?.allows('kafka.internal', 9092)).toBe(false)
    expect(list?.allows('evilkafka.internal', 9092)).toBe(false)
    expect(list?.allows('10.0.0.5', 1)).toBe(true)
    expect(list?.allows('::1', 9093)).toBe(true)
    expect(list?.allows('169.254.169.254', 80)).toBe(false)
    expect(list?.refused(['10.0.0.5:9092', '127.0.0.1:22', 'b1.kafka.internal:9092'])).toEqual(['127.0.0.1:22'])
  })

  it('refuses entries that are not hosts', () => {
    expect(() => HostAllowlist.parse('http://kafka:9092')).toThrow(/MIRRORBOARD_KAFKA_ALLOWED_HOSTS/)
    expect(() => HostAllowlist.parse('kafka:99999')).toThrow(/MIRRORBOARD_KAFKA_ALLOWED_HOSTS/)
  })

  it('gives kafkajs a socket that fails at once for a host off the list, and the real one otherwise', async () => {
    const list = HostAllowlist.parse('allowed.example')!
    const made: string[] = []
    const factory = guardedSocketFactory(list, ({ host }) => {
      made.push(host)
      return new net.Socket()
    })
    factory({ host: 'allowed.example', port: 9092, ssl: null, onConnect: () => {} })
    const refused = factory({ host: '127.0.0.1', port: 22, ssl: null, onConnect: () => {} })
    expect(made).toEqual(['allowed.example'])
    await expect(new Promise((_resolve, reject) => refused.on('error', reject))).rejects.toThrow(/not in MIRRORBOARD_KAFKA_ALLOWED_HOSTS/)
  })
})
