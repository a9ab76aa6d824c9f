import type { NextConfig } from 'next'
import { staticSecurityHeaders } from './server/http/security-headers'

/**
 * `npm run demo` builds to serve, not to check (MIRRORBOARD_DEMO_BUILD=1, set by scripts/demo.sh): `npm test`
 * type-checks everything, and a demo built once from a fresh clone gains nothing from Turbopack's build cache
 * (written at the end of every build). Both cost a fresh clone's first demo tens of seconds.
 */
const demoBuild = process.env.MIRRORBOARD_DEMO_BUILD === '1'
// npm test's production build comes right after its own type-check of every file (MIRRORBOARD_BUILD_SKIP_TYPECHECK=1).
const buildOnce = demoBuild || process.env.MIRRORBOARD_BUILD_SKIP_TYPECHECK === '1'

const nextConfig: NextConfig = {
  // kafkajs and the native CRC32C binding must be loaded by Node's require, once per process, not bundled.
  serverExternalPackages: ['kafkajs', '@node-rs/crc32'],
  poweredByHeader: false,
  // MIRRORBOARD_SOURCE_MAPS=1: a build whose browser profiles name our functions (Lighthouse and CPU profiles).
  productionBrowserSourceMaps: process.env.MIRRORBOARD_SOURCE_MAPS === '1',
  // server/main.ts compresses, at levels chosen for multi-megabyte JSON; Next's own would compress again.
  compress: false,
  reactStrictMode: true,
  // The build type-checks the app without its tests (their dev dependencies are absent from a production install).
  typescript: { tsconfigPath: 'tsconfig.build.json', ignoreBuildErrors: buildOnce },
  experimental: { turbopackFileSystemCacheForBuild: !buildOnce },
  // For `next start` alone; server/main.ts sets them per request (with the script nonce) and keeps its own policy.
  headers: async () => [{ source: '/:path*', headers: staticSecurityHeaders() }],
}

export default nextConfig
