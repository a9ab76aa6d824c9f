import { describe, expect, it } from 'vitest'
import { isValidName } from './names'

describe('isValidName (the name rule of clusters, mirrors and topics)', () => {
  it('takes Kafka topic names and refuses "." and "..", which mean something else in a path', () => {
    expect(['orders', 'eu.orders-v2', '_internal', '...', '.x', 'a'.repeat(249)].map(isValidName)).toEqual([true, true, true, true, true, true])
    expect(['.', '..', '', 'a b', 'a/b', 'a'.repeat(250), 42, null].map(isValidName)).toEqual([false, false, false, false, false, false, false, false])
  })
})
