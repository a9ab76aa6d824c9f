import { z } from 'zod'
import { MirrorConfigInput } from '@/lib/api/mirrors'

/**
 * `--mirror-config FILE`, a Java properties file as kafka-cluster-mirrors.sh reads one: `key=value` or
 * `key: value` lines, `#` and `!` comments, a trailing backslash continuing a line. The KIP's file holds the
 * source's connection; here the source and destination are clusters the server knows, named by
 * `source.cluster` and `destination.cluster` (or found by `bootstrap.servers` among its Kafka clusters), and
 * every other key is a mirror config of KIP-1279.md §7.3 checked against the API's schema.
 */

export interface MirrorProperties {
  readonly sourceCluster?: string
  readonly destinationCluster?: string
  /** The KIP's source connection: matched against the bootstrap servers of the server's Kafka clusters. */
  readonly bootstrapServers?: string[]
  readonly config: Record<string, unknown>
  /** Connection settings (security.protocol, sasl.*, ssl.*) that belong to the cluster's own definition. */
  readonly connectionKeys: string[]
}

/** Lines to `key → value`, the last of a key winning (as java.util.Properties does). */
export function parseProperties(text: string): Map<string, string> {
  const entries = new Map<string, string>()
  const physical = text.replace(/\r\n?/g, '\n').split('\n')
  for (let index = 0; index < physical.length; index++) {
    let line = (physical[index] ?? '').trimStart()
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue
    while (endsWithContinuation(line) && index + 1 < physical.length) {
      index += 1
      line = line.slice(0, -1) + (physical[index] ?? '').trimStart()
    }
    const separator = line.search(/[=:]|\s/)
    const key = (separator < 0 ? line : line.slice(0, separator)).trim()
    const value = separator < 0 ? '' : line.slice(separator).replace(/^\s*[=:]?\s*/, '').trimEnd()
    entries.set(key, value)
  }
  return entries
}

/** An odd number of trailing backslashes continues the line (an even number is escaped backslashes). */
function endsWithContinuation(line: string): boolean {
  const trailing = /\\*$/.exec(line)?.[0].length ?? 0
  return trailing % 2 === 1
}

const CONNECTION_KEY = /^(security\.protocol|sasl\.|ssl\.|request\.timeout\.ms|socket\.|connections\.max\.idle\.ms|client\.id)/

/** The properties as the create request's parts; a key that is no mirror config is refused with the known ones. */
export function mirrorProperties(entries: ReadonlyMap<string, string>): MirrorProperties {
  const config: Record<string, unknown> = {}
  const connectionKeys: string[] = []
  let sourceCluster: string | undefined
  let destinationCluster: string | undefined
  let bootstrapServers: string[] | undefined
  const shape = MirrorConfigInput.shape
  for (const [key, value] of entries) {
    if (key === 'source.cluster') sourceCluster = value
    else if (key === 'destination.cluster') destinationCluster = value
    else if (key === 'bootstrap.servers') bootstrapServers = splitList(value)
    else if (CONNECTION_KEY.test(key)) connectionKeys.push(key)
    else if (Object.hasOwn(shape, key)) config[key] = typed(shape[key as keyof typeof shape], value)
    else throw new Error(`${key} is not a mirror config (known: source.cluster, destination.cluster, bootstrap.servers, ${Object.keys(shape).join(', ')})`)
  }
  return {
    ...(sourceCluster === undefined ? {} : { sourceCluster }),
    ...(destinationCluster === undefined ? {} : { destinationCluster }),
    ...(bootstrapServers === undefined ? {} : { bootstrapServers }),
    config,
    connectionKeys,
  }
}

/** A list config is comma-separated, a numeric one a number; the API's schema judges the result. */
function typed(schema: z.ZodType, value: string): unknown {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema
  if (inner instanceof z.ZodArray) return splitList(value)
  if (inner instanceof z.ZodNumber && /^-?\d+$/.test(value)) return Number(value)
  return value
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}
