/**
 * Apache Kafka's MirrorMaker 2 in dedicated mode (`org.apache.kafka.connect.mirror.MirrorMaker`), a → b, as a
 * JVM child process for the Kafka benchmark: its jars come from `scripts/kafka/mm2/fetch.sh` (same Kafka release
 * as the test brokers), fetched on first use only, so `npm test` never pays for them.
 *
 * What it leaves on the clusters (Connect's internal topics, offset syncs, checkpoints, heartbeats and the
 * replicated topics) is found by name and deleted by `removeMirrorMakerTopics`, so the next run starts clean.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Admin } from 'kafkajs'
import { kafkaHome, repoRoot, runDir } from '../paths'

export const mirrorMakerLib: string = join(kafkaHome, 'mm2-lib')
const markerJar = 'connect-mirror-4.1.2.jar'
const home = join(runDir, 'mm2')

/** Source cluster alias `a`, target alias `b`: MirrorMaker's names for the two test clusters. */
export const SOURCE_ALIAS = 'a'
export const TARGET_ALIAS = 'b'

/** The default replication policy prefixes the source alias: `a.<topic>` on b (so it never meets the engine's `<topic>`). */
export function replicatedTopic(topic: string): string {
  return `${SOURCE_ALIAS}.${topic}`
}

/**
 * Topics MirrorMaker 2 creates for a → b (MirrorMakerConfig, MirrorConnectorConfig defaults): on the target,
 * Connect's `mm2-{configs,offsets,status}.a.internal`, `heartbeats`, `a.checkpoints.internal` and `a.<topic>`;
 * on the source, `mm2-offset-syncs.b.internal`.
 */
export function isMirrorMakerTopic(topic: string, cluster: 'source' | 'target'): boolean {
  if (cluster === 'source') return topic === `mm2-offset-syncs.${TARGET_ALIAS}.internal` || topic === 'heartbeats'
  return /^mm2-(configs|offsets|status)\.a\.internal$/.test(topic) || topic === 'heartbeats' || topic.startsWith(`${SOURCE_ALIAS}.`)
}

export function ensureMirrorMakerJars(): void {
  if (existsSync(join(mirrorMakerLib, markerJar))) return
  const result = spawnSync('bash', [join(repoRoot, 'scripts/kafka/mm2/fetch.sh')], { stdio: 'inherit' })
  if (result.status !== 0) throw new Error(`scripts/kafka/mm2/fetch.sh exited with ${result.status ?? result.signal}`)
}

export interface MirrorMakerOptions {
  sourceBootstrap: string
  targetBootstrap: string
  /** Topics to replicate (a regex list, as `a->b.topics`). */
  topics: string[]
  /** One task per source partition, as MirrorSourceConnector assigns them. */
  tasks: number
}

/** The properties file of connect-mirror-maker.sh: defaults everywhere but what single-node clusters need. */
export function mirrorMakerProperties(o: MirrorMakerOptions): string {
  return [
    `clusters = ${SOURCE_ALIAS}, ${TARGET_ALIAS}`,
    `${SOURCE_ALIAS}.bootstrap.servers = ${o.sourceBootstrap}`,
    `${TARGET_ALIAS}.bootstrap.servers = ${o.targetBootstrap}`,
    `${SOURCE_ALIAS}->${TARGET_ALIAS}.enabled = true`,
    `${SOURCE_ALIAS}->${TARGET_ALIAS}.topics = ${o.topics.join(',')}`,
    `${TARGET_ALIAS}->${SOURCE_ALIAS}.enabled = false`,
    `tasks.max = ${o.tasks}`,
    // Single-broker clusters: every topic MirrorMaker or Connect creates has one replica.
    'replication.factor = 1',
    'checkpoints.topic.replication.factor = 1',
    'heartbeats.topic.replication.factor = 1',
    'offset-syncs.topic.replication.factor = 1',
    'offset.storage.replication.factor = 1',
    'status.storage.replication.factor = 1',
    'config.storage.replication.factor = 1',
    // The test brokers have no authorizer: ACL sync would only log DescribeAcls failures.
    'sync.topic.acls.enabled = false',
    '',
  ].join('\n')
}

export class MirrorMaker {
  private exit: string | null = null

  private constructor(
    private readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    child.once('exit', (code, signal) => {
      this.exit = signal ?? `code ${code}`
    })
  }

  /** Starts `MirrorMaker <props> --clusters b` (the target's workers only, as one dedicated node for a → b). */
  static start(options: MirrorMakerOptions): MirrorMaker {
    ensureMirrorMakerJars()
    rmSync(home, { recursive: true, force: true })
    mkdirSync(home, { recursive: true })
    const props = join(home, 'mm2.properties')
    writeFileSync(props, mirrorMakerProperties(options))
    const logFile = join(home, 'mm2.log')
    const fd = openSync(logFile, 'a')
    // connect-mirror-maker.sh's heap (-Xms256M -Xmx2G, here 1G) and the JVM's default GC and JIT: MirrorMaker as shipped.
    const child = spawn(
      'java',
      ['-Xms256m', '-Xmx1g', '-Djava.awt.headless=true', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-Dorg.slf4j.simpleLogger.showDateTime=true', '-cp', join(mirrorMakerLib, '*'), 'org.apache.kafka.connect.mirror.MirrorMaker', props, '--clusters', TARGET_ALIAS],
      { stdio: ['ignore', fd, fd], cwd: home },
    )
    closeSync(fd)
    return new MirrorMaker(child, logFile)
  }

  /** Why it stopped (null while it runs): a MirrorMaker that died must end the wait for its records. */
  exited(): string | null {
    return this.exit
  }

  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
    } catch {
      return '(no log)'
    }
  }

  /** SIGTERM (MirrorMaker's shutdown hook stops its connectors), SIGKILL after 20 s. */
  async stop(): Promise<void> {
    if (this.exit !== null) return
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()))
    this.child.kill('SIGTERM')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000)
    await exited
    clearTimeout(timer)
  }
}

/**
 * Deletes what MirrorMaker 2 created on one cluster and waits until the cluster stops listing it (deletion is
 * asynchronous: a MirrorMaker started meanwhile would find its old offsets); returns the names deleted.
 */
export async function removeMirrorMakerTopics(admin: Admin, cluster: 'source' | 'target'): Promise<string[]> {
  const topics = (await admin.listTopics()).filter((topic) => isMirrorMakerTopic(topic, cluster))
  if (topics.length === 0) return topics
  await admin.deleteTopics({ topics, timeout: 30_000 })
  const deadline = Date.now() + 30_000
  while ((await admin.listTopics()).some((topic) => topics.includes(topic))) {
    if (Date.now() > deadline) throw new Error(`MirrorMaker topics still listed 30 s after their deletion: ${topics.join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return topics
}
