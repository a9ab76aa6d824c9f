import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  // kafkajs and the native CRC32C binding must be loaded by Node's require, once per process, not bundled.
  serverExternalPackages: ['kafkajs', '@node-rs/crc32'],
  poweredByHeader: false,
  // server/main.ts compresses, at levels chosen for multi-megabyte JSON; Next's own would compress again.
  compress: false,
  reactStrictMode: true,
  // The build type-checks the app without its tests (their dev dependencies are absent from a production install).
  // A run that has just type-checked everything (npm test's first step) skips the
  // build's second pass over the same files: it costs a minute or more on two cores.
  typescript: { tsconfigPath: 'tsconfig.build.json', ignoreBuildErrors: process.env.MIRRORBOARD_BUILD_SKIP_TYPECHECK === '1' },
}

export default nextConfig
