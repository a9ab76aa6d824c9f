import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATE_METADATA } from '@/lib/mirror/state-metadata'
import { MIRROR_PARTITION_STATE_CODES, MIRROR_PARTITION_STATES } from '@/lib/mirror/states'

/** docs/kip-1279.md's table of state names says what lib/mirror/states.ts holds, row for row. */
describe('the state names documented beside the voted KIP', () => {
  it('lists every state with its voted name and byte, as STATE_METADATA and MIRROR_PARTITION_STATE_CODES have them', () => {
    const doc = readFileSync(path.join(__dirname, '../../docs/kip-1279.md'), 'utf8')
    const section = doc.slice(doc.indexOf("## State names: ours and the voted KIP's"), doc.indexOf('## State machine and persistence'))
    const rows = section
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map(([, ours, voted, code]) => [ours!.replaceAll('`', ''), voted!.replaceAll('`', '').split(' ')[0], Number(code!.replace('−', '-'))])
    expect(rows).toEqual(MIRROR_PARTITION_STATES.map((state) => [state, STATE_METADATA[state].kipName, MIRROR_PARTITION_STATE_CODES[state]]))
  })
})
