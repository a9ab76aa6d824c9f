// No `server-only` marker: server/main.ts imports this outside Next's bundles.

/** Where the production server listens: `-H`/`--hostname` and `-p`/`--port` (as `next start` took them), else HOSTNAME and PORT. */
export interface ListenAddress {
  hostname: string
  port: number
}

function option(argv: readonly string[], flag: string, long: string): string | undefined {
  const index = argv.findIndex((arg) => arg === flag || arg === long)
  return index >= 0 ? argv[index + 1] : undefined
}

/**
 * The address from the command line (`argv` without node and the script) or the environment; and the same address
 * written back as HOST and PORT, which the runtime's configuration reads (server/config.ts: MIRRORBOARD_URL's default;
 * server/ha/ha-config.ts: MIRRORBOARD_ADVERTISED_URL's default). A flag wins over what the environment said, so an
 * instance started with `-p 4000` advertises port 4000 to the others, not 3000.
 */
export function listenAddress(argv: readonly string[], env: Record<string, string | undefined>): ListenAddress {
  const hostFlag = option(argv, '-H', '--hostname')
  const portFlag = option(argv, '-p', '--port')
  const hostname = hostFlag ?? env.HOSTNAME ?? '0.0.0.0'
  const port = Number(portFlag ?? env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${String(portFlag ?? env.PORT)}`)
  if (hostFlag !== undefined) env.HOST = hostFlag
  else if (env.HOST === undefined && env.HOSTNAME !== undefined) env.HOST = env.HOSTNAME
  if (portFlag !== undefined) env.PORT = String(port)
  return { hostname, port }
}
