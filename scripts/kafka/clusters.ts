// Over 400 lines on purpose: one CLI and library for the test brokers (format, start with the SASL, SSL and authorizer settings, kill/restart, stop); splitting it would spread one lifecycle over files that only ever change together.
/**
 * Two independent single-node KRaft clusters (`a` and `b`) for integration tests.
 *
 *   npx tsx scripts/kafka/clusters.ts start|stop|status
 *
 * `start` runs the brokers detached, so they outlive this CLI; `.kafka/run/clusters.json` records them
 * and `scripts/kafka/test-clusters.ts` reads it back for the tests.
 */
import { execFile, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Kafka, logLevel } from 'kafkajs'
import { clustersFile, defaultLibDir, kafkaMarkerJar, repoRoot, runDir } from './paths'
import { makeTlsMaterial } from './tls-material'

export const clusterNames = ['a', 'b'] as const
export type ClusterName = (typeof clusterNames)[number]

/** A SASL_PLAINTEXT listener (cluster `b` only, which also has an authorizer) with one user known to PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512; not a super user. */
export interface SaslListener {
  bootstrap: string
  username: string
  password: string
  mechanisms: Array<'plain' | 'scram-sha-256' | 'scram-sha-512'>
}

/** Test-only credentials of the SASL listener; they protect nothing but the auth tests' loopback broker. */
const SASL_USER = { username: 'alice', password: 'alice-test-secret' }

/** An SSL listener (cluster `a` only) that requires a client certificate, and the test material to reach it. */
export interface TlsListener {
  bootstrap: string
  /** PEMs: the CA of the broker's and the client's certificates, the client certificate and its key. */
  ca: string
  clientCert: string
  clientKey: string
}

export interface RunningCluster {
  sasl?: SaslListener
  tls?: TlsListener
  bootstrap: string
  logDir: string
  pid: number
  clusterId: string
  controllerPort: number
  brokerLog: string
}

export interface ClustersState {
  clusters: Record<ClusterName, RunningCluster>
  lib: string
}

export interface StartOptions {
  /** Readiness deadline per broker. */
  timeoutMs?: number
  log?: (message: string) => void
}

export class KafkaClustersError extends Error {
  constructor(
    readonly code: 'FETCH_FAILED' | 'FORMAT_FAILED' | 'BROKER_EXITED' | 'BROKER_NOT_READY',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'KafkaClustersError'
  }
}

// Small heap, serial GC and C1-only JIT: two brokers plus the tests share two cores.
const brokerJvmFlags = [
  '-Xms256m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true', '-Dorg.slf4j.simpleLogger.defaultLogLevel=info', '-Dorg.slf4j.simpleLogger.showDateTime=true',
]
const toolJvmFlags = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1']

const clusterDir = (name: ClusterName): string => join(runDir, name)
const pidFile = (name: ClusterName): string => join(clusterDir(name), 'broker.pid')

interface SslListenerFiles {
  port: number
  keystore: string
  truststore: string
}

function renderProperties(o: { brokerPort: number; controllerPort: number; dataDir: string; saslPort?: number; ssl?: SslListenerFiles }): string {
  const sasl = `${o.saslPort === undefined ? '' : `,SASL_PLAINTEXT://127.0.0.1:${o.saslPort}`}${o.ssl === undefined ? '' : `,SSL://127.0.0.1:${o.ssl.port}`}`
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${o.controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${o.brokerPort},CONTROLLER://127.0.0.1:${o.controllerPort}${sasl}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${o.brokerPort}${sasl}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${o.saslPort === undefined ? '' : ',SASL_PLAINTEXT:SASL_PLAINTEXT'}${o.ssl === undefined ? '' : ',SSL:SSL'}`,
    // Clients authenticate on the SASL listener only; brokers and controller keep PLAINTEXT among themselves.
    ...(o.saslPort === undefined
      ? []
      : [
          'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
          `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${SASL_USER.username}="${SASL_USER.password}";`,
          'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
          'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
          // KRaft's authorizer, so DENY WRITE ACLs on mirror topics are enforced here. The PLAINTEXT listeners (the
          // tests' clients, the broker itself, its controller) authenticate as User:ANONYMOUS, a super user that
          // no ACL stops; a resource without ACLs stays open to the SASL user, so only an ACL refuses it.
          'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
          'super.users=User:ANONYMOUS',
          'allow.everyone.if.no.acl.found=true',
        ]),
    // Mutual TLS on the SSL listener: PEM stores (KIP-651), a client certificate signed by the test CA required.
    ...(o.ssl === undefined
      ? []
      : [
          'listener.name.ssl.ssl.keystore.type=PEM',
          `listener.name.ssl.ssl.keystore.location=${o.ssl.keystore}`,
          'listener.name.ssl.ssl.truststore.type=PEM',
          `listener.name.ssl.ssl.truststore.location=${o.ssl.truststore}`,
          'listener.name.ssl.ssl.client.auth=required',
        ]),
    `log.dirs=${o.dataDir}`,
    // A single node must host every internal topic itself.
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    // The defaults (50 partitions each) make the first group/transaction call slow on two cores.
    'offsets.topic.num.partitions=1',
    'transaction.state.log.num.partitions=1',
    'num.partitions=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    'num.network.threads=2',
    'num.io.threads=2',
    'background.threads=2',
    // The cleaner's dedupe buffer is allocated on the heap (128 MiB by default).
    'log.cleaner.dedupe.buffer.size=16777216',
    '',
  ].join('\n')
}

/**
 * 16 random bytes, base64url, like Kafka's `Uuid.randomUuid()`, which also re-draws ids starting with '-'
 * because command-line parsers (StorageTool's argparse4j included) take them for an option.
 */
function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

/** Ports the kernel hands out for port 0; all held open together so the picks are distinct. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        const server = createServer()
        server.once('error', reject)
        server.listen(0, '127.0.0.1', () => resolve(server))
      }),
    ),
  )
  const ports = servers.map((s) => (s.address() as AddressInfo).port)
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
  return ports
}

function ensureLib(log: (message: string) => void): string {
  if (existsSync(join(defaultLibDir, kafkaMarkerJar))) return defaultLibDir
  log('fetching Kafka jars (scripts/kafka/fetch.sh)')
  const result = spawnSync('bash', [join(repoRoot, 'scripts/kafka/fetch.sh')], { stdio: 'inherit' })
  if (result.status !== 0) throw new KafkaClustersError('FETCH_FAILED', `scripts/kafka/fetch.sh exited with ${result.status ?? result.signal}`)
  return defaultLibDir
}

function execJava(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('java', args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new KafkaClustersError('FORMAT_FAILED', `${args.join(' ')}\n${stdout}${stderr}`, { cause: error }))
      else resolve()
    })
  })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Guards against pid reuse: only signal a process that is still one of our brokers. */
function isOurBroker(pid: number, name: ClusterName): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    return cmdline.includes('kafka.Kafka') && cmdline.includes(join(clusterDir(name), 'server.properties'))
  } catch {
    return false
  }
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function waitReady(o: {
  name: ClusterName
  bootstrap: string
  clusterId: string
  exited: () => string | null
  brokerLog: string
  timeoutMs: number
  /** Set once a sibling broker failed: stop polling, the caller is tearing everything down. */
  cancelled: () => boolean
}): Promise<void> {
  const deadline = Date.now() + o.timeoutMs
  let lastError: unknown = null
  while (Date.now() < deadline && !o.cancelled()) {
    const exit = o.exited()
    if (exit !== null) {
      throw new KafkaClustersError('BROKER_EXITED', `broker ${o.name} exited (${exit}) during startup; log tail:\n${tail(o.brokerLog)}`)
    }
    const admin = new Kafka({
      clientId: 'mirrorboard-cluster-readiness',
      brokers: [o.bootstrap],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      requestTimeout: 2000,
      retry: { retries: 0 },
    }).admin()
    try {
      await admin.connect()
      const cluster = await admin.describeCluster()
      if (cluster.clusterId !== o.clusterId) {
        throw new Error(`${o.bootstrap} answers with cluster id ${cluster.clusterId}, expected ${o.clusterId}`)
      }
      if (cluster.brokers.length === 1 && cluster.controller !== null) return
      lastError = new Error(`metadata not complete yet: ${JSON.stringify(cluster)}`)
    } catch (error) {
      lastError = error
    } finally {
      await admin.disconnect().catch(() => undefined)
    }
    await sleep(250)
  }
  if (o.cancelled()) throw new KafkaClustersError('BROKER_NOT_READY', `startup of broker ${o.name} cancelled`)
  throw new KafkaClustersError(
    'BROKER_NOT_READY',
    `broker ${o.name} (${o.bootstrap}) not ready after ${o.timeoutMs} ms; log tail:\n${tail(o.brokerLog)}`,
    { cause: lastError },
  )
}

function readState(): ClustersState | null {
  try {
    return JSON.parse(readFileSync(clustersFile, 'utf8')) as ClustersState
  } catch {
    return null
  }
}

function knownPids(): Array<{ name: ClusterName; pid: number }> {
  const state = readState()
  const found: Array<{ name: ClusterName; pid: number }> = []
  for (const name of clusterNames) {
    const pids = new Set<number>()
    const fromState = state?.clusters?.[name]?.pid
    if (typeof fromState === 'number') pids.add(fromState)
    // The pid file survives a `start` that failed before clusters.json was written.
    try {
      const fromFile = Number(readFileSync(pidFile(name), 'utf8').trim())
      if (Number.isSafeInteger(fromFile) && fromFile > 0) pids.add(fromFile)
    } catch {
      // no pid file: nothing was started for this cluster
    }
    for (const pid of pids) found.push({ name, pid })
  }
  return found
}

async function terminate(pids: Array<{ name: ClusterName; pid: number }>, log: (message: string) => void): Promise<void> {
  const ours = pids.filter(({ pid, name }) => isAlive(pid) && isOurBroker(pid, name))
  for (const { name, pid } of ours) {
    log(`stopping broker ${name} (pid ${pid})`)
    signal(pid, 'SIGTERM')
  }
  // Checked via the cmdline, not kill(0): an exited but not yet reaped broker (zombie) has an empty one.
  const stillRunning = ({ pid, name }: { pid: number; name: ClusterName }): boolean => isOurBroker(pid, name)
  const deadline = Date.now() + 10_000
  while (ours.some(stillRunning) && Date.now() < deadline) await sleep(100)
  for (const { name, pid } of ours) {
    if (stillRunning({ pid, name })) {
      log(`broker ${name} (pid ${pid}) ignored SIGTERM for 10 s: SIGKILL`)
      signal(pid, 'SIGKILL')
    }
  }
  const killDeadline = Date.now() + 5_000
  while (ours.some(stillRunning) && Date.now() < killDeadline) await sleep(50)
}

/** A broker may exit on its own between the liveness check and the signal. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error
  }
}

/** Stops the brokers recorded in `.kafka/run` (no-op when nothing runs) and removes clusters.json. */
export async function stopClusters(opts: { log?: (message: string) => void } = {}): Promise<void> {
  const log = opts.log ?? (() => undefined)
  await terminate(knownPids(), log)
  rmSync(clustersFile, { force: true })
  for (const name of clusterNames) rmSync(pidFile(name), { force: true })
}

interface Launched {
  name: ClusterName
  cluster: RunningCluster
  exited: () => string | null
}

async function launch(name: ClusterName, lib: string, brokerPort: number, controllerPort: number, saslPort?: number, sslPort?: number): Promise<Launched> {
  const dir = clusterDir(name)
  rmSync(dir, { recursive: true, force: true })
  const dataDir = join(dir, 'data')
  mkdirSync(dataDir, { recursive: true })
  const props = join(dir, 'server.properties')
  const tls = sslPort === undefined ? undefined : makeTlsMaterial(join(dir, 'tls'))
  const ssl = tls === undefined || sslPort === undefined ? undefined : { port: sslPort, keystore: tls.brokerKeystore, truststore: tls.brokerTruststore }
  writeFileSync(props, renderProperties({ brokerPort, controllerPort, dataDir, ...(saslPort === undefined ? {} : { saslPort }), ...(ssl === undefined ? {} : { ssl }) }))
  const clusterId = newClusterId()
  const classpath = join(lib, '*')
  // SCRAM credentials live in the cluster metadata: KRaft takes them at format time (KIP-900).
  const scram = saslPort === undefined ? [] : ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => ['--add-scram', `${m}=[name=${SASL_USER.username},password=${SASL_USER.password}]`])
  await execJava([...toolJvmFlags, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props, ...scram])

  const brokerLog = join(dir, 'broker.log')
  const logFd = openSync(brokerLog, 'a')
  // Detached with its own stdio so the broker keeps running after this CLI exits.
  const child = spawn('java', [...brokerJvmFlags, '-cp', classpath, 'kafka.Kafka', props], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    cwd: dir,
  })
  closeSync(logFd)
  let exit: string | null = null
  child.once('exit', (code, signal) => {
    exit = signal ?? `code ${code}`
  })
  child.once('error', (error) => {
    exit = error.message
  })
  child.unref()
  const pid = child.pid
  if (pid === undefined) throw new KafkaClustersError('BROKER_EXITED', `could not spawn java for broker ${name}`)
  writeFileSync(pidFile(name), `${pid}\n`)
  return {
    name,
    exited: () => exit,
    cluster: {
      bootstrap: `127.0.0.1:${brokerPort}`,
      logDir: dataDir,
      pid,
      clusterId,
      controllerPort,
      brokerLog,
      ...(saslPort === undefined ? {} : { sasl: { bootstrap: `127.0.0.1:${saslPort}`, ...SASL_USER, mechanisms: ['plain', 'scram-sha-256', 'scram-sha-512'] } }),
      ...(tls === undefined ? {} : { tls: { bootstrap: `127.0.0.1:${sslPort}`, ca: tls.ca, clientCert: tls.clientCert, clientKey: tls.clientKey } }),
    },
  }
}

async function launchAll(lib: string, timeoutMs: number, log: (message: string) => void): Promise<Launched[]> {
  // Two ports per cluster, one more for cluster b's SASL listener and one for cluster a's SSL listener.
  const ports = await freePorts(clusterNames.length * 2 + 2)
  const launched: Launched[] = []
  let cancelled = false
  try {
    const results = await Promise.allSettled(
      clusterNames.map((name, i) =>
        launch(name, lib, ports[2 * i] ?? 0, ports[2 * i + 1] ?? 0, name === 'b' ? ports[2 * clusterNames.length] : undefined, name === 'a' ? ports[2 * clusterNames.length + 1] : undefined),
      ),
    )
    for (const result of results) if (result.status === 'fulfilled') launched.push(result.value)
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed) throw failed.reason
    await Promise.all(
      launched.map((l) =>
        waitReady({
          name: l.name,
          bootstrap: l.cluster.bootstrap,
          clusterId: l.cluster.clusterId,
          exited: l.exited,
          brokerLog: l.cluster.brokerLog,
          timeoutMs,
          cancelled: () => cancelled,
        }),
      ),
    )
    return launched
  } catch (error) {
    cancelled = true
    await stopClusters({ log })
    throw error
  }
}

/** Starts clusters `a` and `b` from scratch (stopping any previous ones) and writes clusters.json. */
export async function startClusters(opts: StartOptions = {}): Promise<ClustersState> {
  const log = opts.log ?? (() => undefined)
  const timeoutMs = opts.timeoutMs ?? 90_000
  const lib = ensureLib(log)
  await stopClusters({ log })
  mkdirSync(runDir, { recursive: true })

  let launched: Launched[]
  try {
    launched = await launchAll(lib, timeoutMs, log)
  } catch (error) {
    // The ports were free when picked but are released before Kafka binds them: another process may win.
    if (!(error instanceof KafkaClustersError && error.code === 'BROKER_EXITED' && /Address already in use/.test(error.message))) throw error
    log('a picked port was taken before the broker bound it; retrying with new ports')
    launched = await launchAll(lib, timeoutMs, log)
  }
  const byName = Object.fromEntries(launched.map((l) => [l.name, l.cluster])) as Record<ClusterName, RunningCluster>
  const state: ClustersState = { clusters: byName, lib }
  const tmp = `${clustersFile}.tmp`
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`)
  renameSync(tmp, clustersFile)
  return state
}

/**
 * Kills one running broker at once (SIGKILL, as a crash would): its data stays, and `startBroker` brings it
 * back on the same ports and log dirs. For tests of a broker lost mid-fetch.
 */
export async function killBroker(name: ClusterName): Promise<void> {
  const state = readState()
  const pid = state?.clusters?.[name]?.pid
  if (pid === undefined || !isOurBroker(pid, name)) throw new KafkaClustersError('BROKER_EXITED', `broker ${name} is not running`)
  signal(pid, 'SIGKILL')
  const deadline = Date.now() + 5_000
  while (isOurBroker(pid, name) && Date.now() < deadline) await sleep(50)
}

/** Starts a killed broker again over its existing data (no format), waits until it answers, records its pid. */
export async function startBroker(name: ClusterName, opts: { timeoutMs?: number } = {}): Promise<RunningCluster> {
  const state = readState()
  const cluster = state?.clusters?.[name]
  if (!state || !cluster) throw new KafkaClustersError('BROKER_NOT_READY', `no recorded cluster ${name}: run \`npx tsx scripts/kafka/clusters.ts start\``)
  if (isOurBroker(cluster.pid, name)) return cluster
  const dir = clusterDir(name)
  const logFd = openSync(cluster.brokerLog, 'a')
  const child = spawn('java', [...brokerJvmFlags, '-cp', join(state.lib, '*'), 'kafka.Kafka', join(dir, 'server.properties')], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    cwd: dir,
  })
  closeSync(logFd)
  let exit: string | null = null
  child.once('exit', (code, sig) => {
    exit = sig ?? `code ${code}`
  })
  child.unref()
  if (child.pid === undefined) throw new KafkaClustersError('BROKER_EXITED', `could not spawn java for broker ${name}`)
  writeFileSync(pidFile(name), `${child.pid}\n`)
  const restarted: RunningCluster = { ...cluster, pid: child.pid }
  const next: ClustersState = { ...state, clusters: { ...state.clusters, [name]: restarted } }
  const tmp = `${clustersFile}.tmp`
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`)
  renameSync(tmp, clustersFile)
  await waitReady({ name, bootstrap: cluster.bootstrap, clusterId: cluster.clusterId, exited: () => exit, brokerLog: cluster.brokerLog, timeoutMs: opts.timeoutMs ?? 60_000, cancelled: () => false })
  return restarted
}

export interface ClusterStatus {
  name: ClusterName
  pid: number | null
  alive: boolean
  bootstrap: string | null
}

export function clustersStatus(): ClusterStatus[] {
  const state = readState()
  return clusterNames.map((name) => {
    const cluster = state?.clusters?.[name]
    const pid = cluster?.pid ?? null
    return { name, pid, alive: pid !== null && isAlive(pid) && isOurBroker(pid, name), bootstrap: cluster?.bootstrap ?? null }
  })
}

async function main(argv: string[]): Promise<number> {
  const log = (message: string): void => console.error(`[kafka-clusters] ${message}`)
  switch (argv[0]) {
    case 'start': {
      const started = Date.now()
      const state = await startClusters({ log })
      for (const name of clusterNames) log(`${name}: ${state.clusters[name].bootstrap} (pid ${state.clusters[name].pid})`)
      log(`both clusters ready in ${((Date.now() - started) / 1000).toFixed(1)} s; wrote ${clustersFile}`)
      return 0
    }
    case 'stop':
      await stopClusters({ log })
      return 0
    case 'status': {
      const status = clustersStatus()
      console.log(JSON.stringify(status, null, 2))
      return status.every((s) => s.alive) ? 0 : 3
    }
    default:
      console.error('usage: npx tsx scripts/kafka/clusters.ts start|stop|status')
      return 2
  }
}

// Run as a CLI only when executed directly, not when a test imports startClusters/stopClusters.
if (process.argv[1] !== undefined && /scripts[\\/]kafka[\\/]clusters\.ts$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error)
      process.exit(1)
    },
  )
}
