import { defineConfig, devices } from '@playwright/test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromiumLaunchOptions, traceMode } from './e2e/support/chromium'

/**
 * Several instances sharing the work (e2e/ha/, docs/high-availability.md): the production server as one instance of
 * a group mirroring between the worktree's Kafka test clusters (`npx tsx scripts/kafka/clusters.ts start` first), and
 * a second instance serving the API only (scripts/testing/ha-api-child.ts), so that pages show a group and a mirror
 * the other instance runs. Their control cluster is a broker of its own behind a TCP proxy
 * (scripts/testing/control-broker-child.ts), which a journey cuts to show the control cluster unreachable and restores.
 * Desktop only; the journeys look at the phone size themselves.
 */

const port = Number(process.env.E2E_PORT ?? 3330)
const otherPort = Number(process.env.E2E_HA_OTHER_PORT ?? port + 1)
const controlPort = Number(process.env.E2E_HA_CONTROL_PORT ?? port + 2)
const controlAdminPort = Number(process.env.E2E_HA_CONTROL_ADMIN_PORT ?? port + 3)
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'mirrorboard-e2e-ha-'))
process.env.E2E_DATA_DIR = dataDir
const otherDataDir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-e2e-ha-other-'))
const operatorToken = (process.env.E2E_OPERATOR_TOKEN ??= 'e2e-operator-token')
const viewerToken = (process.env.E2E_VIEWER_TOKEN ??= 'e2e-viewer-token')
// scripts/kafka/test-clusters.ts reads the same file; Playwright's loader cannot load its import.meta.
const clusters = (JSON.parse(readFileSync(path.join(__dirname, '.kafka/run/clusters.json'), 'utf8')) as { clusters: { a: { bootstrap: string }; b: { bootstrap: string } } }).clusters
process.env.E2E_HA_SOURCE_BOOTSTRAP = clusters.a.bootstrap
process.env.E2E_HA_DESTINATION_BOOTSTRAP = clusters.b.bootstrap
process.env.E2E_HA_OTHER_URL = `http://127.0.0.1:${otherPort}`
process.env.E2E_HA_CONTROL_ADMIN_URL = `http://127.0.0.1:${controlAdminPort}`
const group = (process.env.E2E_HA_GROUP ??= `e2e-ha-${Date.now().toString(36)}`)
const ha = {
  MIRRORBOARD_CONTROL_BOOTSTRAP: `127.0.0.1:${controlPort}`,
  MIRRORBOARD_CONTROL_GROUP: group,
  MIRRORBOARD_SECRET_KEY: 'e2e-ha-secret-key-for-the-group',
  MIRRORBOARD_SESSION_TIMEOUT_MS: '6000',
}

export default defineConfig({
  testDir: './e2e/ha',
  outputDir: './test-results/e2e-ha',
  workers: 1,
  timeout: 120_000,
  forbidOnly: true,
  reporter: [['list']],
  use: { baseURL: `http://127.0.0.1:${port}`, screenshot: 'only-on-failure', trace: traceMode(), launchOptions: chromiumLaunchOptions },
  projects: [{ name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } }],
  webServer: [
    {
      command: `node --import tsx scripts/testing/control-broker-child.ts ${controlPort} ${controlAdminPort}`,
      url: `http://127.0.0.1:${controlAdminPort}/ready`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'pipe',
      // The broker stops and its files go (a SIGKILL would leave them in the temporary directory).
      gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
    },
    {
      command: `node --import tsx server/main.ts -H 127.0.0.1 -p ${port}`,
      url: `http://127.0.0.1:${port}/api/v1/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'pipe',
      env: {
        ...ha,
        MIRRORBOARD_INSTANCE_ID: 'e2e-ui',
        MIRRORBOARD_ADVERTISED_URL: `http://127.0.0.1:${port}`,
        MIRRORBOARD_DATA_DIR: dataDir,
        MIRRORBOARD_OPERATOR_TOKEN: operatorToken,
        MIRRORBOARD_VIEWER_TOKEN: viewerToken,
        MIRRORBOARD_CHECK_RESPONSES: '1',
      },
    },
    {
      command: `node --conditions=react-server --import tsx scripts/testing/ha-api-child.ts ${otherDataDir} ${otherPort}`,
      url: `http://127.0.0.1:${otherPort}/api/v1/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'pipe',
      env: { ...ha, MIRRORBOARD_INSTANCE_ID: 'e2e-other', MIRRORBOARD_ADVERTISED_URL: `http://127.0.0.1:${otherPort}` },
    },
  ],
})
