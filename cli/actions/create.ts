import { clusterEndpoints, mirrorEndpoints } from '@/lib/api/endpoints'
import type { CreateMirrorRequest } from '@/lib/api/mirrors'
import type { Api } from '../api'
import type { Action } from '../action'
import type { Context } from '../context'
import { RefusedError } from '../exit'
import { option } from '../flags'
import { mirrorProperties, parseProperties, type MirrorProperties } from '../properties'

/**
 * `--create --mirror M --source CLUSTER --destination CLUSTER`, or the KIP's `--mirror-config FILE`: a mirror
 * with no topics yet (`--start` adds them, as in the KIP). The flags win over the file's keys.
 */
export const createAction: Action = {
  name: 'create',
  flag: '--create',
  origin: 'kip',
  summary: 'Create a mirror from a source cluster into a destination cluster',
  usage: '--create --mirror M (--source CLUSTER --destination CLUSTER | --mirror-config FILE)',
  examples: ['mirrorboard --create --mirror dr --source us-east --destination eu-west', 'mirrorboard --create --mirror a-to-b --mirror-config a-to-b.properties'],
  options: [
    option('--mirror <name>', 'the new mirror'),
    option('--source <cluster>', 'the cluster it copies from'),
    option('--destination <cluster>', 'the cluster it copies into (which owns the mirror)'),
    option('--mirror-config <file>', 'a properties file: source.cluster, destination.cluster (or bootstrap.servers of a Kafka source) and mirror configs such as topics.exclude', { complete: 'file' }),
  ],
  details: [
    'The mirror starts empty; add topics with --start. Clusters are named as the server knows them (--clusters).',
    'In --mirror-config, list configs are comma-separated (topics.exclude=__.*,tmp.*), numbers plain.',
  ].join('\n'),
  async run(context) {
    const { api, out, flags } = context
    const name = flags.required('mirror')
    const file = flags.string('mirrorConfig')
    const properties = file === undefined ? null : await readProperties(context, file)
    const sourceCluster = flags.string('source') ?? properties?.sourceCluster ?? (await sourceByBootstrap(api, properties))
    const destinationCluster = flags.string('destination') ?? properties?.destinationCluster
    if (sourceCluster === undefined) throw flags.usageError('--source is required (or source.cluster / bootstrap.servers in --mirror-config)')
    if (destinationCluster === undefined) throw flags.usageError('--destination is required (or destination.cluster in --mirror-config)')
    const config = properties?.config ?? {}
    const body: CreateMirrorRequest = { name, sourceCluster, destinationCluster, ...(Object.keys(config).length > 0 ? { config } : {}) }
    if ((properties?.connectionKeys.length ?? 0) > 0) {
      out.warn(`note: ${properties?.connectionKeys.join(', ')} ignored: the connection is the source cluster's own (mirrorboard --clusters add)`)
    }
    const mirror = await api.call(mirrorEndpoints.createMirror, { body })
    out.result(mirror, () =>
      `Created mirror ${mirror.name}: ${mirror.sourceCluster} → ${mirror.destinationCluster}. Add topics with mirrorboard --start --mirror ${mirror.name} --topics 'regex,…'\n`,
    )
  },
}

async function readProperties({ io, flags }: Context, file: string): Promise<MirrorProperties> {
  let text: string
  try {
    text = await io.readFile(file)
  } catch (error) {
    throw flags.usageError(`cannot read --mirror-config ${file}: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}`)
  }
  try {
    return mirrorProperties(parseProperties(text))
  } catch (error) {
    throw flags.usageError(`--mirror-config ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The KIP's way of naming the source: the Kafka cluster the server knows with the same bootstrap servers. */
async function sourceByBootstrap(api: Api, properties: MirrorProperties | null): Promise<string | undefined> {
  const wanted = properties?.bootstrapServers
  if (wanted === undefined) return undefined
  const { clusters } = await api.call(clusterEndpoints.listClusters)
  const found = clusters.filter((cluster) => (cluster.bootstrapServers ?? []).some((server) => wanted.includes(server)))
  if (found.length === 1) return found[0]?.name
  const known = clusters.filter((cluster) => cluster.kind === 'kafka').map((cluster) => `${cluster.name} (${(cluster.bootstrapServers ?? []).join(',')})`)
  throw new RefusedError(
    'NOT_FOUND',
    found.length === 0
      ? `no cluster of the server has bootstrap.servers ${wanted.join(',')}: add it with mirrorboard --clusters add --kind kafka, or set source.cluster (Kafka clusters: ${known.join(', ') || 'none'})`
      : `bootstrap.servers ${wanted.join(',')} matches several clusters (${found.map((cluster) => cluster.name).join(', ')}): set source.cluster`,
  )
}
