import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { LabelText, MetricsRegistry, PartitionLabels, renderPrometheus, SampleColumns, type CollectedFamily, type MetricFamily } from './metrics'
import { promClientExposition } from './testing/prom-client-exposition'

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
    expect(text).toContain(['# HELP mirrorboard_up Up.', '# TYPE mirrorboard_up gauge', 'mirrorboard_up 1', 'mirrorboard_up{x="1"} NaN'].join('\n'))
    expect(text).toContain(['# TYPE mirrorboard_things_total counter', 'mirrorboard_things_total 3'].join('\n'))
    expect(text.endsWith('\n')).toBe(true)
  })

  it('refuses names Prometheus would not parse', async () => {
    await expect(renderPrometheus([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).rejects.toThrow(/invalid metric name/)
    await expect(renderPrometheus([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': 'x' }, value: 1 }] }])).rejects.toThrow(/invalid label/)
    expect(() => LabelText.of({ 'bad-label': 'x' })).toThrow(/invalid label/)
  })

  it('writes what prom-client writes for the same families, label text escaped once or label objects, samples in rows or columns', async () => {
    const labels = new PartitionLabels('mirror')
    const families: MetricFamily[] = [
      { name: 'mirrorboard_partition_offset_lag', help: 'Lag, with a \\ and a\nnewline in its help.', type: 'gauge', samples: [] },
      { name: 'mirrorboard_mirrored_records_total', help: 'Records.', type: 'counter', samples: [{ labels: { mirror: 'dr' }, value: 2 ** 53 }, { labels: {}, value: 1e-7 }] },
      { name: 'mirrorboard_partition_offset_lag', help: 'Lag, with a \\ and a\nnewline in its help.', type: 'gauge', samples: [{ labels: LabelText.of({ mirror: 'x' }), value: -1.5 }] },
    ]
    const columns = new SampleColumns()
    for (const mirror of ['dr', 'a"b\\c\nd', 'ünï']) {
      for (const topic of ['orders', 'pay.ments-1']) {
        for (let partition = 0; partition < 3; partition++) {
          families[0]!.samples.push({ labels: labels.of(mirror, topic, partition), value: partition * 1000.25 })
          columns.push(labels.of(mirror, topic, partition), partition === 1 ? Number.NaN : partition / 3)
        }
      }
    }
    const registry = new MetricsRegistry(undefined, { defaultMetrics: true })
    registry.histogram('mirrorboard_test_seconds', 'Test.', ['route'], [0.1, 1]).observe({ route: '/x' }, 0.5)
    const collected: CollectedFamily[] = [...families, { name: 'mirrorboard_partition_time_lag_seconds', help: 'Time lag.', type: 'gauge', samples: columns }]
    registry.register('families', () => collected)
    const ours = await registry.render()
    const reference = (await promClientExposition(registry.registry, [...collected, ...(await registry.collect()).slice(-1)])).replaceAll(' Nan\n', ' NaN\n')
    // Ours and the reference each read the process metrics at their own moment: compare what does not move.
    const stable = (text: string) => text.split('\n').filter((line) => line !== '' && !/^(process_|nodejs_)/.test(line) && !/^# (HELP|TYPE) (process_|nodejs_)/.test(line))
    expect(stable(ours).sort()).toEqual(stable(reference).sort())
    expect(ours).toContain('mirrorboard_partition_offset_lag{mirror="a\\"b\\\\c\\nd",topic="pay.ments-1",partition="2"} 2000.5')
    expect(ours).toContain('mirrorboard_partition_time_lag_seconds{mirror="ünï",topic="orders",partition="1"} NaN')
    expect(ours).toContain('# HELP mirrorboard_partition_offset_lag Lag, with a \\\\ and a\\nnewline in its help.')
  })

  it('writes NaN and infinities as Prometheus spells them', async () => {
    const text = await renderPrometheus([{ name: 'x', help: 'x', type: 'gauge', samples: [{ labels: { v: 'nan' }, value: Number.NaN }, { labels: { v: 'inf' }, value: Infinity }, { labels: { v: '-inf' }, value: -Infinity }] }])
    expect(text).toContain(['x{v="nan"} NaN', 'x{v="inf"} +Inf', 'x{v="-inf"} -Inf'].join('\n'))
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
    if (process.platform === 'linux') {
      // Counted off the event loop (metrics.ts says why), as prom-client counts it: the descriptors of /proc/self/fd.
      const openFds = Number(text.match(/^process_open_fds (\d+)$/m)?.[1])
      expect(openFds).toBeGreaterThan(2)
      expect(Math.abs(openFds - (readdirSync('/proc/self/fd').length - 1))).toBeLessThanOrEqual(2)
      expect(text).toContain('# HELP process_open_fds Number of open file descriptors.\n# TYPE process_open_fds gauge')
    }
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

  it('refuses a collected family named like one of prom-client, and a histogram named like a collected family', async () => {
    const registry = new MetricsRegistry()
    registry.histogram('mirrorboard_test_seconds', 'Test.', [], [1])
    const remove = registry.register('x', () => [{ name: 'mirrorboard_test_seconds', help: 'x', type: 'gauge', samples: [] }])
    await expect(registry.render()).rejects.toThrow(/both collected and prom-client's/)
    remove()
    registry.register('y', () => [{ name: 'mirrorboard_y', help: 'y', type: 'gauge', samples: [] }])
    await registry.render()
    expect(() => registry.counter('mirrorboard_y', 'y', [])).toThrow(/already a collected family/)
  })

  it('gives the event loop turns while it writes a large scrape, and writes every series', async () => {
    const labels = new PartitionLabels('cluster')
    const registry = new MetricsRegistry()
    registry.register('wide', () => {
      const samples = []
      for (let partition = 0; partition < 200_000; partition++) samples.push({ labels: labels.of('a', `t${partition % 10}`, partition), value: partition })
      labels.sweep()
      return [{ name: 'wide', help: 'w', type: 'gauge' as const, samples }]
    })
    let turns = 0
    let counting = true
    const count = () => {
      turns += 1
      if (counting) setImmediate(count)
    }
    setImmediate(count)
    const text = await registry.render()
    counting = false
    expect(turns).toBeGreaterThan(1)
    expect(text.split('\n').filter((line) => line.startsWith('wide{')).length).toBe(200_000)
    expect(text).toContain('wide{cluster="a",topic="t9",partition="199999"} 199999\n')
  })
})
