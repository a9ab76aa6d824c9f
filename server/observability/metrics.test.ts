import { describe, expect, it } from 'vitest'
import { MetricsRegistry, renderPrometheus } from './metrics'

describe('renderPrometheus', () => {
  it('writes HELP, TYPE and samples with escaped labels, merging families of the same name', async () => {
    const text = await renderPrometheus([
      { name: 'mirrorboard_partitions', help: 'Partitions per state.', type: 'gauge', samples: [{ labels: { mirror: 'dr', state: 'MIRRORING' }, value: 12 }] },
      { name: 'mirrorboard_partitions', help: 'Partitions per state.', type: 'gauge', samples: [{ labels: { mirror: 'a"b\\c\nd', state: 'FAILED' }, value: 0 }] },
      { name: 'mirrorboard_up', help: 'Up.', type: 'gauge', samples: [{ value: 1 }, { labels: { x: 1 }, value: Number.NaN }] },
      { name: 'mirrorboard_things_total', help: 'Things.', type: 'counter', samples: [{ value: 3 }] },
    ])
    expect(text).toContain(
      [
        '# HELP mirrorboard_partitions Partitions per state.',
        '# TYPE mirrorboard_partitions gauge',
        'mirrorboard_partitions{mirror="dr",state="MIRRORING"} 12',
        'mirrorboard_partitions{mirror="a\\"b\\\\c\\nd",state="FAILED"} 0',
      ].join('\n'),
    )
    // prom-client writes NaN as "Nan", which Prometheus parses (case-insensitively, as Go's ParseFloat does).
    expect(text).toContain(['# HELP mirrorboard_up Up.', '# TYPE mirrorboard_up gauge', 'mirrorboard_up 1', 'mirrorboard_up{x="1"} Nan'].join('\n'))
    expect(text).toContain(['# TYPE mirrorboard_things_total counter', 'mirrorboard_things_total 3'].join('\n'))
    expect(text.endsWith('\n')).toBe(true)
  })

  it('refuses names Prometheus would not parse', async () => {
    await expect(renderPrometheus([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).rejects.toThrow(/invalid metric name/)
    await expect(renderPrometheus([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': 'x' }, value: 1 }] }])).rejects.toThrow(/invalid label/)
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

  it('removes a collector with the function register returned; its family stays declared without samples', async () => {
    const registry = new MetricsRegistry()
    const remove = registry.register('x', () => [{ name: 'x_total', help: 'x', type: 'counter', samples: [{ value: 1 }] }])
    expect(await registry.render()).toContain('x_total 1')
    remove()
    const text = await registry.render()
    expect(text).toContain('# TYPE x_total counter')
    expect(text).not.toContain('x_total 1')
  })

  it("serves prom-client's histograms and the process and Node.js default metrics", async () => {
    const registry = new MetricsRegistry(undefined, { defaultMetrics: true })
    const histogram = registry.histogram('mirrorboard_test_seconds', 'Test.', ['route'], [0.1, 1])
    expect(registry.histogram('mirrorboard_test_seconds', 'Test.', ['route'], [0.1, 1])).toBe(histogram)
    histogram.observe({ route: '/api/v1/x' }, 0.5)
    const text = await registry.render()
    expect(text).toContain('mirrorboard_test_seconds_bucket{le="0.1",route="/api/v1/x"} 0')
    expect(text).toContain('mirrorboard_test_seconds_bucket{le="1",route="/api/v1/x"} 1')
    expect(text).toContain('mirrorboard_test_seconds_count{route="/api/v1/x"} 1')
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m)
    expect(registry.contentType).toBe('text/plain; version=0.0.4; charset=utf-8')
  })

  it('answers scrapes at the same time from one collection', async () => {
    let collections = 0
    const registry = new MetricsRegistry()
    registry.register('x', async () => {
      collections += 1
      await new Promise((resolve) => setTimeout(resolve, 10))
      return [{ name: 'x', help: 'x', type: 'gauge', samples: [{ value: collections }] }]
    })
    const [a, b] = await Promise.all([registry.render(), registry.render()])
    expect(a).toBe(b)
    expect(collections).toBe(1)
  })
})
