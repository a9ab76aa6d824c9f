import 'server-only'
import { lookup } from 'node:dns/promises'
import { networkInterfaces } from 'node:os'
import { withTimeout } from '@/server/util/with-timeout'

const LOOKUP_TIMEOUT_MS = 2_000

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80')
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

function isLocalAddress(address: string, local: ReadonlySet<string>): boolean {
  const plain = address.replace(/^::ffff:/, '')
  return plain.startsWith('127.') || plain === '::1' || plain === '0.0.0.0' || plain === '::' || local.has(plain)
}

/**
 * Whether a receiver URL leads back to this server: alerts posted to it would come back as API requests
 * (and an alertmanager receiver would post to a path that answers 404 forever). The server is known by the
 * address the request came in on and the configured URL; a host that resolves to this machine on one of
 * those ports counts too. A host that does not resolve is not refused: its deliveries fail and show.
 */
export async function pointsAtThisServer(target: URL, own: readonly URL[]): Promise<boolean> {
  const ports = new Set(own.map(portOf))
  if (!ports.has(portOf(target))) return false
  const host = hostOf(target)
  if (own.some((url) => hostOf(url) === host)) return true
  const local = new Set(
    Object.values(networkInterfaces())
      .flat()
      .flatMap((info) => (info ? [info.address] : [])),
  )
  if (isLocalAddress(host, local) || host === 'localhost') return true
  try {
    const addresses = await withTimeout(lookup(host, { all: true }), LOOKUP_TIMEOUT_MS)
    return addresses.some(({ address }) => isLocalAddress(address, local))
  } catch {
    return false
  }
}
