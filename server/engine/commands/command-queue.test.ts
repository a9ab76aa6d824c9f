import { describe, expect, it } from 'vitest'
import { EngineError } from '../errors'
import { checkConditions, MirrorCommandQueue } from './command-queue'

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)))
  return { promise, resolve, reject }
}

const versions = new Map<string, string>([
  ['m', 'v1'],
  ['n', 'w1'],
])
const queue = () => new MirrorCommandQueue((mirror) => versions.get(mirror) ?? 'missing')

describe('MirrorCommandQueue', () => {
  it('runs one mirror’s commands one at a time, in arrival order, even when an earlier one fails', async () => {
    const commands = queue()
    const ran: string[] = []
    const first = deferred()
    const a = commands.submit({ kind: 'pause', mirror: 'm', run: async () => (ran.push('a:start'), await first.promise, ran.push('a:end'), 'a') })
    const b = commands.submit({ kind: 'resume', mirror: 'm', run: async () => (ran.push('b'), Promise.reject(new Error('b failed'))) })
    const c = commands.submit({ kind: 'pause', mirror: 'm', run: async () => (ran.push('c'), 'c') })
    await Promise.resolve()
    expect(ran).toEqual(['a:start'])
    first.resolve()
    await expect(a).resolves.toBe('a')
    await expect(b).rejects.toThrow('b failed')
    await expect(c).resolves.toBe('c')
    expect(ran).toEqual(['a:start', 'a:end', 'b', 'c'])
  })

  it('lets other mirrors’ commands run meanwhile', async () => {
    const commands = queue()
    const held = deferred()
    const slow = commands.submit({ kind: 'pause', mirror: 'm', run: () => held.promise })
    await expect(commands.submit({ kind: 'pause', mirror: 'n', run: async () => 'n ran' })).resolves.toBe('n ran')
    held.resolve()
    await slow
  })

  it('checks the state-version precondition when the command’s turn comes, refusing without running it', async () => {
    const commands = queue()
    const held = deferred()
    let ran = false
    const first = commands.submit({
      kind: 'config',
      mirror: 'm',
      run: async () => {
        await held.promise
        versions.set('m', 'v2')
      },
    })
    // Read before the first command changed the mirror: the version no longer holds when this one runs.
    const stale = commands.submit({ kind: 'pause', mirror: 'm', conditions: { stateVersion: { anyOf: ['v1'], asSent: '"v1"' } }, run: async () => (ran = true) })
    held.resolve()
    await first
    await expect(stale).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', details: { ifMatch: '"v1"', stateVersion: 'v2' } })
    expect(ran).toBe(false)
    await expect(commands.submit({ kind: 'pause', mirror: 'm', conditions: { stateVersion: { anyOf: ['v0', 'v2'], asSent: '"v0", "v2"' } }, run: async () => 'ok' })).resolves.toBe('ok')
    versions.set('m', 'v1')
  })

  it('keeps the next command waiting while a command holds the mirror after answering (an operation)', async () => {
    const commands = queue()
    const operation = deferred()
    const ran: string[] = []
    await expect(commands.submit({ kind: 'failover', mirror: 'm', startsOperation: true, run: async () => 'accepted', holdUntil: () => operation.promise })).resolves.toBe('accepted')
    const next = commands.submit({ kind: 'pause', mirror: 'm', run: async () => ran.push('pause') })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(ran).toEqual([])
    operation.resolve()
    await next
    expect(ran).toEqual(['pause'])
    await commands.idle()
  })

  it('refuses a second operation-starting command at once while the first has not answered, and takes one again after', async () => {
    const commands = queue()
    const planning = deferred<string>()
    const first = commands.submit({ kind: 'failover', mirror: 'm', startsOperation: true, run: () => planning.promise })
    await expect(commands.submit({ kind: 'failover', mirror: 'm', startsOperation: true, run: async () => 'second' })).rejects.toThrow(
      new EngineError('CONFLICT', 'a failover of mirror m is being started right now'),
    )
    // Commands that start nothing queue as usual; another mirror is not concerned.
    const pause = commands.submit({ kind: 'pause', mirror: 'm', run: async () => 'paused' })
    await expect(commands.submit({ kind: 'failover', mirror: 'n', startsOperation: true, run: async () => 'n' })).resolves.toBe('n')
    planning.reject(new EngineError('CONFIRMATION_REQUIRED', 'type the name'))
    await expect(first).rejects.toMatchObject({ code: 'CONFIRMATION_REQUIRED' })
    await expect(pause).resolves.toBe('paused')
    await expect(commands.submit({ kind: 'failover', mirror: 'm', startsOperation: true, run: async () => 'again' })).resolves.toBe('again')
  })
})

describe('checkConditions', () => {
  it('passes without a condition, and refuses any version but the current one (an empty list matches nothing)', () => {
    expect(() => checkConditions('m', undefined, () => 'v1')).not.toThrow()
    expect(() => checkConditions('m', {}, () => 'v1')).not.toThrow()
    expect(() => checkConditions('m', { stateVersion: { anyOf: ['v1'], asSent: '"v1"' } }, () => 'v1')).not.toThrow()
    expect(() => checkConditions('m', { stateVersion: { anyOf: [], asSent: 'W/"v1"' } }, () => 'v1')).toThrow(
      expect.objectContaining({
        code: 'PRECONDITION_FAILED',
        message: 'mirror m changed since that version was read (If-Match W/"v1"); read it again',
        details: { ifMatch: 'W/"v1"', stateVersion: 'v1' },
      }),
    )
  })
})
