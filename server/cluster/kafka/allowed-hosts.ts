import 'server-only'
import net from 'node:net'

/**
 * MIRRORBOARD_KAFKA_ALLOWED_HOSTS: where the server may open Kafka connections at all. An operator adding a
 * cluster names any host and port, and the server connects to it, and then to whatever brokers that host
 * advertises: without a list the console can be pointed at any address its network reaches. A list is
 * comma-separated entries, each `host`, `host:port`, `*.domain` or `*.domain:port` (case-insensitive; an IPv6
 * address in brackets); it is checked for the bootstrap servers before connecting and for every socket
 * kafkajs opens (advertised brokers included).
 */
interface Entry {
  host: string
  wildcard: boolean
  port: number | null
}

function splitHostPort(text: string): { host: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] === undefined ? null : Number(bracketed[2]) }
  const index = text.lastIndexOf(':')
  if (index > 0 && text.indexOf(':') === index && /^\d+$/.test(text.slice(index + 1))) return { host: text.slice(0, index), port: Number(text.slice(index + 1)) }
  return { host: text, port: null }
}

export class HostAllowlist {
  private constructor(
    private readonly entries: readonly Entry[],
    readonly source: string,
  ) {}

  /** null when the variable is unset or empty: every host allowed. Throws on an entry that is not a host. */
  static parse(text: string | undefined): HostAllowlist | null {
    const items = (text ?? '').split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '')
    if (items.length === 0) return null
    const entries = items.map((item) => {
      const { host, port } = splitHostPort(item)
      const wildcard = host.startsWith('*.')
      const name = wildcard ? host.slice(2) : host
      if (name === '' || /[\s/*]/.test(name) || (port !== null && (port < 1 || port > 65535))) {
        throw new Error(`MIRRORBOARD_KAFKA_ALLOWED_HOSTS: ${JSON.stringify(item)} is not a host, host:port or *.domain[:port]`)
      }
      return { host: name, wildcard, port }
    })
    return new HostAllowlist(entries, items.join(','))
  }

  allows(host: string, port: number): boolean {
    const name = host.toLowerCase().replace(/^\[|\]$/g, '')
    return this.entries.some(
      (entry) => (entry.port === null || entry.port === port) && (entry.wildcard ? name.endsWith(`.${entry.host}`) : name === entry.host),
    )
  }

  /** The bootstrap servers (`host:port`) the list refuses. */
  refused(servers: readonly string[]): string[] {
    return servers.filter((server) => {
      const { host, port } = splitHostPort(server)
      return port === null || !this.allows(host, port)
    })
  }
}

type SocketFactory = (options: { host: string; port: number; ssl: unknown; onConnect: () => void }) => net.Socket

/** kafkajs's socket factory, refusing (with a connection error) every socket to a host the list does not allow. */
export function guardedSocketFactory(allowlist: HostAllowlist, inner: SocketFactory): SocketFactory {
  return (options) => {
    if (allowlist.allows(options.host, options.port)) return inner(options)
    const socket = new net.Socket()
    process.nextTick(() => socket.destroy(new Error(`${options.host}:${options.port} is not in MIRRORBOARD_KAFKA_ALLOWED_HOSTS`)))
    return socket
  }
}
