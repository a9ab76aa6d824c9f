import { clusterEndpoints } from '@/lib/api/endpoints'
import { ClusterKind, CreateKafkaClusterRequest, type Cluster, type CreateClusterRequest } from '@/lib/api/clusters'
import type { Action } from '../action'
import type { Context } from '../context'
import { EXIT } from '../exit'
import { flagName, option } from '../flags'
import { renderTable } from '../format'

/**
 * `--clusters [list|add|remove]`: the clusters the server manages, which mirrors name as sources and
 * destinations. `add` creates an embedded cluster or adds a Kafka one (connected before it is saved); secrets
 * (the SASL password, the TLS key) are read from files, never from a flag value, which ps would show.
 */

const SUBACTIONS = ['list', 'add', 'remove'] as const
const SASL_MECHANISMS = CreateKafkaClusterRequest.shape.sasl.unwrap().shape.mechanism.options

export const clustersAction: Action = {
  name: 'clusters',
  flag: '--clusters [action]',
  origin: 'mirrorboard',
  summary: 'Clusters: list (default), add (embedded or Kafka), remove',
  usage: '--clusters [list] | --clusters add --cluster NAME --kind embedded|kafka [...] | --clusters remove --cluster NAME',
  examples: [
    'mirrorboard --clusters',
    'mirrorboard --clusters add --cluster east --kind embedded --brokers 3',
    'mirrorboard --clusters add --cluster prod --kind kafka --bootstrap-servers k1:9093,k2:9093 --sasl-mechanism scram-sha-512 --sasl-username mirror --sasl-password-file pw.txt --tls-ca-file ca.pem',
    'mirrorboard --clusters remove --cluster east',
  ],
  options: [
    option('--cluster <name>', 'the cluster to add or remove'),
    option('--kind <kind>', 'embedded (created in the server) or kafka (an existing Kafka cluster)', { choices: ClusterKind.options }),
    option('--brokers <n>', 'embedded: how many brokers (default 3)'),
    option('--bootstrap-servers <host:port,...>', 'kafka: where to connect'),
    option('--sasl-mechanism <mechanism>', 'kafka: SASL mechanism', { choices: SASL_MECHANISMS }),
    option('--sasl-username <user>', 'kafka: SASL user name'),
    option('--sasl-password-file <file>', 'kafka: a file holding the SASL password', { complete: 'file' }),
    option('--tls', 'kafka: connect over TLS'),
    option('--tls-ca-file <file>', 'kafka: PEM of the CA that signed the brokers\' certificates (implies --tls)', { complete: 'file' }),
    option('--tls-cert-file <file>', 'kafka: PEM client certificate, for mutual TLS', { complete: 'file' }),
    option('--tls-key-file <file>', 'kafka: PEM private key of the client certificate', { complete: 'file' }),
  ],
  async run(context) {
    const { api, out, flags, style } = context
    const value = flags.optional('clusters')
    const subaction = value === true || value === undefined ? 'list' : SUBACTIONS.find((candidate) => candidate === value)
    if (subaction === undefined) throw flags.usageError(`--clusters takes ${SUBACTIONS.join(', ')} (got "${value}")`)
    if (subaction === 'remove') {
      const cluster = flags.required('cluster')
      await api.call(clusterEndpoints.deleteCluster, { params: { cluster } })
      out.result({ removed: cluster }, () => `Removed cluster ${cluster}\n`)
      return EXIT.ok
    }
    if (subaction === 'add') {
      const cluster = await api.call(clusterEndpoints.createCluster, { body: await addRequest(context) })
      out.result(cluster, () => `Added cluster ${cluster.name} (${cluster.kind}, id ${cluster.clusterId || 'not known yet'}, ${cluster.brokers.length} broker${cluster.brokers.length === 1 ? '' : 's'})\n`)
      return EXIT.ok
    }
    const { clusters } = await api.call(clusterEndpoints.listClusters)
    out.result(clusters, () =>
      renderTable(
        clusters,
        [
          { header: 'NAME', value: (row: Cluster) => row.name },
          { header: 'KIND', value: (row) => row.kind },
          { header: 'CLUSTER-ID', value: (row) => row.clusterId || '-' },
          { header: 'BROKERS', value: (row) => `${row.brokers.filter((broker) => broker.alive).length}/${row.brokers.length} alive` },
          { header: 'TOPICS', value: (row) => String(row.topicCount) },
          { header: 'STATUS', value: (row) => (row.error === undefined ? row.status : `${row.status}: ${row.error}`), tone: (row) => (row.status === 'ok' ? 'healthy' : 'danger') },
          { header: 'BOOTSTRAP-SERVERS', value: (row) => (row.bootstrapServers ?? []).join(',') || '-' },
        ],
        style,
      ),
    )
    return EXIT.ok
  },
}

async function addRequest({ flags, io }: Context): Promise<CreateClusterRequest> {
  const name = flags.required('cluster')
  const kind = flags.choice('kind', ClusterKind.options)
  if (kind === undefined) throw flags.usageError('--kind is required: embedded or kafka')
  const readSecret = async (flag: string): Promise<string | undefined> => {
    const file = flags.string(flag)
    if (file === undefined) return undefined
    try {
      return (await io.readFile(file)).trim()
    } catch (error) {
      throw flags.usageError(`cannot read --${flagName(flag)} ${file}: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}`)
    }
  }
  if (kind === 'embedded') {
    const brokers = flags.integer('brokers', { min: 1, max: 9 })
    return { name, kind, ...(brokers === undefined ? {} : { brokers }) }
  }
  const bootstrapServers = flags.list('bootstrapServers')
  if (bootstrapServers === undefined) throw flags.usageError('--bootstrap-servers is required for a Kafka cluster')
  const mechanism = flags.choice('saslMechanism', SASL_MECHANISMS)
  const username = flags.string('saslUsername')
  const password = await readSecret('saslPasswordFile')
  let sasl: { mechanism: (typeof SASL_MECHANISMS)[number]; username: string; password: string } | undefined
  if (mechanism !== undefined || username !== undefined || password !== undefined) {
    if (mechanism === undefined || username === undefined || password === undefined) throw flags.usageError('SASL needs --sasl-mechanism, --sasl-username and --sasl-password-file together')
    sasl = { mechanism, username, password }
  }
  const ca = await readSecret('tlsCaFile')
  const cert = await readSecret('tlsCertFile')
  const key = await readSecret('tlsKeyFile')
  const pem = { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) }
  const ssl = Object.keys(pem).length > 0 ? pem : flags.boolean('tls') ? true : undefined
  return {
    name,
    kind,
    bootstrapServers,
    ...(sasl === undefined ? {} : { sasl }),
    ...(ssl === undefined ? {} : { ssl }),
  }
}
