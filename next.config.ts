import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  // kafkajs and the native CRC32C binding must be loaded by Node's require, once per process, not bundled.
  serverExternalPackages: ['kafkajs', '@node-rs/crc32'],
  poweredByHeader: false,
  // server/main.ts compresses, at levels chosen for multi-megabyte JSON; Next's own would compress again.
  compress: false,
  reactStrictMode: true,
  // The build type-checks the app without its tests (their dev dependencies are absent from a production install).
  typescript: { tsconfigPath: 'tsconfig.build.json' },
}

export default nextConfig
