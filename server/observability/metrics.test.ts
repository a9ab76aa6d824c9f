import { describe, expect, it } from 'vitest'
import { MetricsRegistry, renderPrometheus } from './metrics'

describe('renderPrometheus', () => {
  it('writes HELP, TYPE and samples with escaped labels, merging families of the same name', () => {
    const text = renderPrometheus([
      { name: 'mirrorboard_partitions', help: 'Partitions per state.', type: 'gauge', samples: [{ labels: { mirror: 'dr', state: 'MIRRORING' }, value: 12 }] },
      { name: 'mirrorboard_partitions', help: 'Partitions per state.', type: 'gauge', samples: [{ labels: { mirror: 'a"b\\c\nd', state: 'FAILED' }, value: 0 }] },
      { name: 'mirrorboard_up', help: 'Up.', type: 'gauge', samples: [{ value: 1 }, { labels: { x: 1 }, value: Number.NaN }] },
    ])
    expect(text).toBe(
      [
        '# HELP mirrorboard_partitions Partitions per state.',
        '# TYPE mirrorboard_partitions gauge',
        'mirrorboard_partitions{mirror="dr",state="MIRRORING"} 12',
        'mirrorboard_partitions{mirror="a\\"b\\\\c\\nd",state="FAILED"} 0',
        '# HELP mirrorboard_up Up.',
        '# TYPE mirrorboard_up gauge',
        'mirrorboard_up 1',
        'mirrorboard_up{x="1"} NaN',
        '',
      ].join('\n'),
    )
  })

  it('refuses names Prometheus would not parse', () => {
    expect(() => renderPrometheus([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).toThrow(/invalid metric name/)
    expect(() => renderPrometheus([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': 'x' }, value: 1 }] }])).toThrow(/invalid label/)
  })
})

describe('MetricsRegistry', () => {
  it('collects from every collector and isolates a failing one', async () => {
    const failures: string[] = []
    const registry = new MetricsRegistry((collector, error) => failures.push(`${collector}: ${(error as Error).message}`))
    registry.register('clusters', () => [{ name: 'mirrorboard_clusters', help: 'Clusters.', type: 'gauge', samples: [{ value: 2 }] }])
    registry.register('engine', async () => {
      throw new Error('engine stopped')
    })
    const text = await registry.render()
    expect(text).toContain('mirrorboard_clusters 2')
    expect(text).toContain('mirrorboard_scrape_collector_success{collector="clusters"} 1')
    expect(text).toContain('mirrorboard_scrape_collector_success{collector="engine"} 0')
    expect(failures).toEqual(['engine: engine stopped'])
  })

  it('removes a collector with the function register returned', async () => {
    const registry = new MetricsRegistry()
    const remove = registry.register('x', () => [{ name: 'x_total', help: 'x', type: 'counter', samples: [{ value: 1 }] }])
    remove()
    expect(await registry.render()).not.toContain('x_total')
  })
})
