import { describe, expect, it } from 'vitest'
import type { Kafka } from 'kafkajs'
import { UnitTransactions, type UnitFenced } from './unit-transactions'

/**
 * A fake of kafkajs's client port (what UnitTransactions sits on): each producer counts its InitProducerId (kafkajs
 * sends it at the first transaction()), and the test decides how each transaction's send and abort end.
 */
function fakeKafka(script: { sendFails: () => Error | null; abortFails: () => Error | null }) {
  const calls = { producers: 0, initProducerIds: 0, commits: 0 }
  const client = () =>
    ({
      producer: () => {
        calls.producers++
        let initialised = false
        return {
          connect: async () => undefined,
          disconnect: async () => undefined,
          transaction: async () => {
            if (!initialised) {
              initialised = true
              calls.initProducerIds++
            }
            return {
              send: async ({ messages }: { messages: unknown[] }) => {
                const failure = script.sendFails()
                if (failure) throw failure
                return [{ baseOffset: '10', partition: 0, errorCode: 0, topicName: 't', offset: '10', count: messages.length }]
              },
              commit: async () => {
                calls.commits++
              },
              abort: async () => {
                const failure = script.abortFails()
                if (failure) throw failure
              },
            }
          },
        }
      },
    }) as unknown as Kafka
  return { client, calls }
}

const networkError = () => Object.assign(new Error('Connection timeout'), { name: 'KafkaJSConnectionError' })

describe('UnitTransactions', () => {
  it('a producer lost mid-transaction is not initialised again by the next write: the unit is refused until claimed, and its owner is told', async () => {
    let broken = true
    const { client, calls } = fakeKafka({ sendFails: () => (broken ? networkError() : null), abortFails: () => (broken ? networkError() : null) })
    const told: UnitFenced[] = []
    const units = new UnitTransactions(client, (unit) => `state-${unit}`, (fenced) => told.push(fenced))

    await expect(units.send('m', 't', [{ value: 'a' }])).rejects.toThrow('Connection timeout')
    expect(calls.initProducerIds).toBe(1)
    expect(told).toEqual([expect.objectContaining({ unit: 'm', transactionalId: 'state-m', reason: 'producerLost' })])
    expect(units.fencedError('m')?.code).toBe('CLUSTER_CONNECTION_FAILED')

    // The broker answers again: still no InitProducerId of this instance's own accord (it would fence a new owner).
    broken = false
    await expect(units.send('m', 't', [{ value: 'b' }])).rejects.toMatchObject({ code: 'CLUSTER_CONNECTION_FAILED' })
    expect(calls.initProducerIds).toBe(1)
    expect(calls.commits).toBe(0)

    // The group handed it back: the claim initialises a new producer, and writes go on.
    await units.claim('m')
    await expect(units.send('m', 't', [{ value: 'c' }])).resolves.toBe(10)
    expect(calls.initProducerIds).toBe(2)
    expect(told).toHaveLength(1)
  })

  it('keeps the producer when the failed transaction could be aborted (no refusal, no new InitProducerId)', async () => {
    let fail = true
    const { client, calls } = fakeKafka({ sendFails: () => (fail ? networkError() : null), abortFails: () => null })
    const told: UnitFenced[] = []
    const units = new UnitTransactions(client, (unit) => `state-${unit}`, (fenced) => told.push(fenced))
    await expect(units.send('m', 't', [{ value: 'a' }])).rejects.toThrow('Connection timeout')
    fail = false
    await expect(units.send('m', 't', [{ value: 'b' }])).resolves.toBe(10)
    expect(calls).toMatchObject({ producers: 1, initProducerIds: 1, commits: 1 })
    expect(told).toEqual([])
  })

  it('a fenced write is refused with INVALID_PRODUCER_EPOCH and reported as fenced', async () => {
    const fenced = Object.assign(new Error('fenced'), { type: 'PRODUCER_FENCED' })
    const { client } = fakeKafka({ sendFails: () => fenced, abortFails: () => fenced })
    const told: UnitFenced[] = []
    const units = new UnitTransactions(client, (unit) => `state-${unit}`, (f) => told.push(f))
    await expect(units.send('m', 't', [{ value: 'a' }])).rejects.toMatchObject({ code: 'INVALID_PRODUCER_EPOCH' })
    expect(told).toEqual([expect.objectContaining({ reason: 'fenced' })])
  })
})
