import 'server-only'
import { openTestRuntime } from '@/server/testing/test-runtime'

/**
 * @internal A server running a planned switchover until the test SIGKILLs it in a phase (no close: nothing
 * flushed beyond what each step made durable), then the same server started again on its data dir.
 *
 *   start <phase>: two embedded clusters, a throttled 3-partition mirror behind by about 60 KB, then a planned
 *                  switchover; prints "phase <phase>" once the operation reached that phase, and waits to be killed.
 *   resume:        opens the data dir (the operation resumes by itself), waits for the operation's end, prints
 *                  one JSON line: its status and phase, records lost, restarts, and both clusters' log end offsets.
 *
 * Run with: node --conditions=react-server --import tsx server/testing/switchover-child.ts <dataDir> start|resume [phase]
 */
async function main() {
  const [dataDir, mode, killAt] = process.argv.slice(2)
  if (!dataDir || (mode !== 'start' && mode !== 'resume')) throw new Error('usage: switchover-child <dataDir> start <phase> | resume')
  process.env.MIRRORBOARD_DATA_DIR = dataDir
  const runtime = await openTestRuntime(dataDir, { demo: false })
  const say = (line: string) => process.stdout.write(`${line}\n`)
  if (mode === 'start') {
    await runtime.clusters.create({ name: 'a', kind: 'embedded', brokers: 1 })
    await runtime.clusters.create({ name: 'b', kind: 'embedded', brokers: 1 })
    const a = runtime.clusters.embedded('a')
    await a.createTopic({ name: 'orders', partitions: 3 })
    await runtime.engine.createMirror({ name: 'm', sourceCluster: 'a', destinationCluster: 'b', topics: ['orders'], config: { 'mirror.replication.throttled.rate': 20_000 } })
    while (!runtime.engine.partitions('m').every((p) => p.state === 'MIRRORING')) await new Promise((resolve) => setTimeout(resolve, 50))
    // About 3 s of backlog at the throttle's rate: the drain is under way for a while.
    for (let i = 0; i < 300; i++) await a.produce('orders', { partition: i % 3, records: [{ key: `k${i}`, value: 'x'.repeat(200) }] })
    runtime.engine.subscribe((event) => {
      if (event.type === 'operation' && event.operation.switchover?.phase === killAt) say(`phase ${killAt}`)
    })
    const { operation } = await runtime.engine.failover('m', { type: 'planned', confirm: 'm' })
    say(`operation ${operation.id}`)
    if (operation.switchover?.phase === killAt) say(`phase ${killAt}`)
    return
  }
  const [operation] = runtime.engine.listOperations({ mirror: 'm' })
  if (!operation) throw new Error('no operation to resume')
  const done = await runtime.engine.awaitOperation(operation.id)
  const ends = async (cluster: string) => (await runtime.clusters.embedded(cluster).describeTopics()).find((t) => t.name === 'orders')!.partitions.map((p) => p.logEndOffset)
  say(`result ${JSON.stringify({ status: done.status, phase: done.switchover?.phase, recordsLost: done.switchover?.recordsLost?.total ?? null, resumedAt: done.resumedAt.length, source: await ends('a'), destination: await ends('b') })}`)
  await runtime.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(2)
})
