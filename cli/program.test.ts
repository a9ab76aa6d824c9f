import { describe, expect, it } from 'vitest'
import { ACTIONS } from './actions'
import { UsageError } from './exit'
import { actionsNamed, parse } from './program'
import { memoryIo } from './testing/memory-io'

function usageError(argv: string[]): UsageError {
  try {
    parse(argv, ACTIONS, memoryIo())
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
  throw new Error(`parsed: ${argv.join(' ')}`)
}

describe('reading a command line as kafka-cluster-mirrors.sh does', () => {
  it('finds the one action flag wherever it stands, and reads its options and the global ones', () => {
    const parsed = parse(['--mirror', 'dr', '--describe', '--failed', '--json', '--server', 'http://h:1'], ACTIONS, memoryIo())
    expect(parsed.kind).toBe('run')
    if (parsed.kind !== 'run') return
    expect(parsed.action.name).toBe('describe')
    expect([parsed.flags.string('mirror'), parsed.flags.boolean('failed'), parsed.flags.boolean('json'), parsed.flags.string('server')]).toEqual(['dr', true, true, 'http://h:1'])
  })

  it('refuses no action, two actions, an unknown flag, an option of another action and a stray word, with the usage line', () => {
    expect(usageError([]).message).toMatch(/^name one action: --create, --start, --stop/)
    expect(usageError(['--start', '--stop', '--mirror', 'dr']).message).toBe('one action at a time: --start and --stop were both given')
    const unknown = usageError(['--describe', '--bogus'])
    expect(unknown.message).toBe("unknown option '--bogus'")
    expect(unknown.usage).toBe('mirrorboard --describe [--mirror M] [--failed] [--json] [--state-names api|kip]')
    expect(usageError(['--stop', '--mirror', 'dr', '--exclude', 'x']).message).toMatch(/unknown option '--exclude'/)
    expect(usageError(['--list', 'extra']).message).toMatch(/too many arguments|excess/i)
    expect(usageError(['--describe', '--output', 'xml']).message).toMatch(/Allowed choices are table, json, yaml/)
  })

  it('never repeats a --flag=value it refuses, and has no --token flag at all', () => {
    expect(usageError(['--list', '--tokn=s3cret-value']).message).not.toContain('s3cret-value')
    for (const argv of [['--list', '--token', 'abc'], ['--list', '--token=abc']]) {
      const error = usageError(argv)
      expect(error.message).toMatch(/no --token flag.*MIRRORBOARD_TOKEN.*--token-file/)
      expect(`${error.message}${error.usage}`).not.toContain('abc')
    }
  })

  it('prints the overview for --help alone and an action\'s help, with its example, for --<action> --help', () => {
    const io = memoryIo()
    expect(parse(['--help'], ACTIONS, io).kind).toBe('help')
    expect(io.out()).toContain('Actions of kafka-cluster-mirrors.sh:')
    expect(io.out()).toContain('Exit codes: 0 done, 1 refused')
    for (const action of ACTIONS) {
      const actionIo = memoryIo()
      const flag = action.flag.split(' ')[0] ?? ''
      expect(parse([flag, '--help'], ACTIONS, actionIo).kind, flag).toBe('help')
      expect(actionIo.out(), flag).toContain(`Usage: mirrorboard ${action.usage}`)
      expect(actionIo.out(), flag).toMatch(/Examples?:\n {2}\S/)
    }
  })

  it('counts only flags before -- as actions', () => {
    expect(actionsNamed(['--describe', '--', '--stop'], ACTIONS).map((action) => action.name)).toEqual(['describe'])
  })
})
