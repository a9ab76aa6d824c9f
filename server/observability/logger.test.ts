import { describe, expect, it } from 'vitest'
import { createPino, withRequestId, wrap, type Logger } from './logger'

function capture(): { log: Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = []
  const log = wrap(createPino({ write: (line: string) => void written.push(line) })).child({ module: 'test' })
  return { log, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) }
}

describe('logger', () => {
  it('writes one JSON object a line with the level, time, message, module and fields', () => {
    const { log, lines } = capture()
    log.warn('a mirror is slow', { mirror: 'dr', lag: 3 })
    const [line] = lines()
    expect(line).toEqual({ level: 'warn', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), message: 'a mirror is slow', module: 'test', mirror: 'dr', lag: 3 })
  })

  it("gives a child's module in place of its parent's, once", () => {
    const { log, lines } = capture()
    log.child({ module: 'engine' }).info('tick')
    expect(lines()[0]).toMatchObject({ module: 'engine' })
    expect(JSON.stringify(lines()[0]).match(/"module"/g)).toHaveLength(1)
  })

  it('puts the request id on every line written while serving a request, awaited work included, and on no other', async () => {
    const { log, lines } = capture()
    await withRequestId('req-1', async () => {
      log.info('first')
      await new Promise((resolve) => setTimeout(resolve, 5))
      log.info('after a wait')
    })
    log.info('outside')
    expect(lines().map((line) => [line.message, line.requestId])).toEqual([
      ['first', 'req-1'],
      ['after a wait', 'req-1'],
      ['outside', undefined],
    ])
  })

  it('redacts secrets by path: tokens, passwords, authorization headers, SASL settings, at the top and nested', () => {
    const { log, lines } = capture()
    log.info('connecting', {
      token: 'tok-secret',
      headers: { authorization: 'Bearer tok-secret', accept: 'json' },
      cluster: { name: 'prod', sasl: { mechanism: 'plain', username: 'u', password: 'pw-secret' } },
      request: { body: { password: 'pw-secret' } },
    })
    const text = JSON.stringify(lines())
    expect(text).not.toContain('secret')
    expect(lines()[0]).toMatchObject({ token: '[redacted]', headers: { authorization: '[redacted]', accept: 'json' }, cluster: { name: 'prod', sasl: '[redacted]' }, request: { body: { password: '[redacted]' } } })
  })

  it('flattens errors in any field with their code and cause', () => {
    const { log, lines } = capture()
    const cause = Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' })
    log.error('delivery failed', { failure: new Error('could not post', { cause }) })
    expect(lines()[0]).toMatchObject({ level: 'error', failure: { name: 'Error', message: 'could not post', cause: { message: 'ECONNREFUSED', code: 'ECONNREFUSED' } } })
  })
})
