// A Kafka broker of its own for the tests of the control cluster as a dependency that can fail (issue #40,
// server/ha/ha-control-outage.integration.test.ts), reached only through a TCP proxy in this process that the test
// can cut and restore: a real socket link, not a mock. The broker advertises the proxy's port, so every connection a
// client opens after the bootstrap (kafkajs follows the advertised address) goes through the proxy too. Separate from
// clusters `a` and `b` (scripts/kafka/clusters.ts), which keep serving the mirrors while the control link is cut.
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { defaultLibDir } from './paths'

export interface ControlBroker {
  /** The proxy's address: what the instances get as MIRRORBOARD_CONTROL_BOOTSTRAP. */
  bootstrap: string
  /** Closes every proxied connection and refuses new ones (closed as soon as accepted). */
  cut(): void
  /** Accepts and forwards connections again. */
  restore(): void
  stop(): Promise<void>
}

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<Server>((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => resolve(server))
  })))
  const ports = servers.map((server) => (server.address() as AddressInfo).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return ports
}

function execJava(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile('java', args, { encoding: 'utf8' }, (error, stdout, stderr) => (error ? reject(new Error(`${stdout}${stderr}`, { cause: error })) : resolve())))
}

/** `proxyPort`: where the proxy listens (a free port when absent), for a caller that must name it before the start. */
export async function startControlBroker(options: { timeoutMs?: number; proxyPort?: number } = {}): Promise<ControlBroker> {
  const [brokerPort, controllerPort, freeProxyPort] = (await freePorts(3)) as [number, number, number]
  const proxyPort = options.proxyPort ?? freeProxyPort
  const dir = mkdtempSync(join(tmpdir(), 'mirrorboard-control-broker-'))
  const dataDir = join(dir, 'data')
  mkdirSync(dataDir)
  const props = join(dir, 'server.properties')
  writeFileSync(props, [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}`,
    // Clients are sent to the proxy for every connection after the bootstrap.
    `advertised.listeners=PLAINTEXT://127.0.0.1:${proxyPort}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${dataDir}`,
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.num.partitions=1',
    'num.partitions=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    'num.network.threads=1',
    'num.io.threads=2',
    'background.threads=2',
    'log.cleaner.dedupe.buffer.size=16777216',
    '',
  ].join('\n'))
  const classpath = join(defaultLibDir, '*')
  const jvm = ['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:+ExitOnOutOfMemoryError', '-Djava.awt.headless=true']
  const clusterId = randomBytes(16).toString('base64url').replace(/^-/, 'A')
  await execJava(['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props])
  const brokerLog = join(dir, 'broker.log')
  const logFd = openSync(brokerLog, 'a')
  const child = spawn('java', [...jvm, '-cp', classpath, 'kafka.Kafka', props], { stdio: ['ignore', logFd, logFd], cwd: dir })
  closeSync(logFd)
  let exited: string | null = null
  child.once('exit', (code, signal) => (exited = signal ?? `code ${code}`))
  // A test process that ends without stop() takes its broker along.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)

  let isCut = false
  const sockets = new Set<Socket>()
  const proxy = createServer((client) => {
    if (isCut) {
      client.destroy()
      return
    }
    const upstream = connect(brokerPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve))
  const bootstrap = `127.0.0.1:${proxyPort}`

  const stop = async () => {
    process.off('exit', killOnExit)
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => proxy.close(resolve))
    if (exited === null) {
      const done = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await done
    }
    rmSync(dir, { recursive: true, force: true })
  }

  const deadline = Date.now() + (options.timeoutMs ?? 90_000)
  for (;;) {
    if (exited !== null || Date.now() > deadline) {
      const log = readFileSync(brokerLog, 'utf8').split('\n').slice(-30).join('\n')
      await stop()
      throw new Error(`the control broker did not start (${exited ?? 'not ready in time'}):\n${log}`)
    }
    const admin = new Kafka({ clientId: 'control-broker-readiness', brokers: [bootstrap], logLevel: logLevel.NOTHING, connectionTimeout: 1000, requestTimeout: 2000, retry: { retries: 0 } }).admin()
    try {
      await admin.connect()
      const cluster = await admin.describeCluster()
      if (cluster.brokers.length === 1 && cluster.controller !== null) break
    } catch {
      // not up yet
    } finally {
      await admin.disconnect().catch(() => undefined)
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
  }

  return {
    bootstrap,
    cut() {
      isCut = true
      for (const socket of sockets) socket.destroy()
    },
    restore() {
      isCut = false
    },
    stop,
  }
}
