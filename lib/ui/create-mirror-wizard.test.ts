import { describe, expect, it } from 'vitest'
import type { TruncationPlan } from '../api/mirrors'
import { createMirrorReducer, createMirrorRequestOf, initialCreateMirrorState, requestKey, type CreateMirrorEvent, type CreateMirrorState } from './create-mirror-wizard'

const plan: TruncationPlan = { mirror: 'dr', partitions: [] }
const run = (events: CreateMirrorEvent[], from: CreateMirrorState = initialCreateMirrorState('east', 'west')) => events.reduce(createMirrorReducer, from)

describe('the create-mirror wizard machine', () => {
  it('starts on the form with the clusters it was opened for', () => {
    const state = initialCreateMirrorState('east', 'west')
    expect(state.step).toBe('settings')
    expect(createMirrorRequestOf(state.draft)).toEqual({ name: '', sourceCluster: 'east', destinationCluster: 'west' })
  })

  it('shows the plan once the dry run answered for the form as it is, and drops it at the next edit', () => {
    const filled = run([{ type: 'edited', change: { name: 'dr', named: new Set(['orders', 'clicks']) } }])
    const planned = run([{ type: 'previewed', plan, request: requestKey(filled.draft) }], filled)
    expect(planned).toMatchObject({ step: 'plan', plan })
    const edited = run([{ type: 'edited', change: { include: 'orders.*' } }], planned)
    expect(edited).toMatchObject({ step: 'settings', plan: null })
    expect(createMirrorRequestOf(edited.draft)).toEqual({ name: 'dr', sourceCluster: 'east', destinationCluster: 'west', topics: ['clicks', 'orders'], topicsInclude: ['orders.*'] })
  })

  it('ignores a dry run that answers after the form changed: it is not the plan of what would be created', () => {
    const asked = run([{ type: 'edited', change: { name: 'dr' } }])
    const changed = run([{ type: 'edited', change: { name: 'dr2' } }], asked)
    expect(run([{ type: 'previewed', plan, request: requestKey(asked.draft) }], changed)).toBe(changed)
  })

  it('keeps the default exclude patterns while the box is empty, and sends only the settings typed', () => {
    const state = run([{ type: 'edited', change: { name: 'dr', exclude: '  ', config: { 'mirror.failed.retry.max.attempts': '5' } } }])
    expect(createMirrorRequestOf(state.draft)).toEqual({ name: 'dr', sourceCluster: 'east', destinationCluster: 'west', config: { 'mirror.failed.retry.max.attempts': 5 } })
  })
})
