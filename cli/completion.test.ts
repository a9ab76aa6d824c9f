import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACTIONS } from './actions'
import { completionScript } from './completion'

/**
 * The completion scripts in the real shells: bash's function called as bash calls it (COMP_WORDS, COMP_CWORD),
 * zsh's driven through a pseudo-terminal (zpty) where TAB is pressed and the completed line is run.
 */

const run = promisify(execFile)
let dir = ''

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mirrorboard-completion-'))
  await writeFile(path.join(dir, 'complete.bash'), completionScript('bash', ACTIONS))
  await writeFile(path.join(dir, 'complete.zsh'), completionScript('zsh', ACTIONS))
  await writeFile(path.join(dir, 'a-to-b.properties'), 'source.cluster=a\n')
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

async function bashCompletes(line: string): Promise<string[]> {
  const words = line.split(' ')
  const script = `source complete.bash; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mirrorboard; printf '%s\\n' "\${COMPREPLY[@]}"`
  const { stdout } = await run('bash', ['-c', script], { cwd: dir })
  return stdout.split('\n').filter((entry) => entry !== '')
}

describe('bash completion', () => {
  it('completes the actions first, then the options of the action on the line, then option values', async () => {
    expect(await bashCompletes('mirrorboard --de')).toEqual(['--delete', '--describe'])
    expect(await bashCompletes('mirrorboard --describe --f')).toEqual(['--failed'])
    expect(await bashCompletes('mirrorboard --describe --ex')).toEqual([])
    expect(await bashCompletes('mirrorboard --start --ex')).toEqual(['--exclude'])
    expect(await bashCompletes('mirrorboard --describe --output ')).toEqual(['table', 'json', 'yaml'])
    expect(await bashCompletes('mirrorboard --stop --mirror dr --type ')).toEqual(['planned', 'unplanned'])
    expect(await bashCompletes('mirrorboard --clusters ')).toEqual(['list', 'add', 'remove'])
    expect(await bashCompletes('mirrorboard --create --mirror-config a-to')).toEqual(['a-to-b.properties'])
    expect(await bashCompletes('mirrorboard --describe --mirror ')).toEqual([])
  })
})

describe('zsh completion', () => {
  it('completes in an interactive zsh after compinit: actions, the action\'s options, choices, files', async () => {
    const lines = ['mirrorboard --desc', 'mirrorboard --describe --fai', 'mirrorboard --describe --output ya', 'mirrorboard --stop --type pl', 'mirrorboard --create --mirror-config a-to', 'mirrorboard --describe --exc', 'mirrorboard --clusters ad']
    // Markers spelled in two quoted halves, so the shell's echo of the typed line never matches them.
    const driver = [
      'zmodload zsh/zpty',
      "zpty z 'zsh -f -i'",
      `zpty -w z "cd ${dir}; PS1='> '; autoload -U compinit && compinit -u -D && source complete.zsh && mirrorboard() { print -r -- \\"AR\\"\\"GS:\\$*:END\\" }; setopt nobeep; print RE\\"\\"ADY"`,
      "zpty -r z line '*READY*'",
      ...lines.flatMap((line) => [`zpty -w -n z '${line}'$'\\t'`, 'sleep 0.3', "zpty -w -n z $'\\r'", "zpty -r z line '*ARGS:*:END*'", 'print -r -- "DONE ${${line##*ARGS:}%%:END*}"']),
      'zpty -d z',
    ].join('\n')
    const { stdout } = await run('zsh', ['-f', '-c', driver], { cwd: dir, timeout: 30_000 })
    const completed = stdout.split('\n').filter((line) => line.startsWith('DONE ')).map((line) => line.slice('DONE '.length).trim())
    expect(completed).toEqual(['--describe', '--describe --failed', '--describe --output yaml', '--stop --type planned', '--create --mirror-config a-to-b.properties', '--describe --exc', '--clusters add'])
  })
})
