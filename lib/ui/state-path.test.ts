import { describe, expect, it } from 'vitest'
import { statePath } from './state-path'

const t = (from: string, to: string) => ({ from, to })

describe('statePath', () => {
  it('lists the states taken, oldest first', () => {
    expect(statePath([t('UNKNOWN', 'PREPARING'), t('PREPARING', 'MIRRORING'), t('MIRRORING', 'PAUSING'), t('PAUSING', 'PAUSED')], 'PAUSED')).toEqual({
      steps: ['UNKNOWN', 'PREPARING', 'MIRRORING', 'PAUSING', 'PAUSED'],
      earlier: false,
    })
  })

  it('is the current state alone before any transition', () => {
    expect(statePath([], 'MIRRORING')).toEqual({ steps: ['MIRRORING'], earlier: false })
    expect(statePath([], null)).toEqual({ steps: [], earlier: false })
  })

  it('writes a retry storm once, with how often it went round', () => {
    const storm = [t('UNKNOWN', 'PREPARING'), t('PREPARING', 'MIRRORING')]
    for (let round = 0; round < 11; round++) storm.push(t('MIRRORING', 'FAILED'), t('FAILED', 'MIRRORING'))
    expect(statePath(storm, 'MIRRORING').steps).toEqual(['UNKNOWN', 'PREPARING', 'MIRRORING ⇄ FAILED × 11', 'MIRRORING'])
  })

  it('keeps the newest states and says earlier ones were left out', () => {
    const long = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].slice(1).map((to, index) => t(['A', 'B', 'C', 'D', 'E', 'F', 'G'][index]!, to))
    expect(statePath(long, 'H', 3)).toEqual({ steps: ['F', 'G', 'H'], earlier: true })
  })
})
