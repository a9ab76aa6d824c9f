import { defineConfig, devices } from '@playwright/test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromiumLaunchOptions, traceMode } from './e2e/support/chromium'

/**
 * The identity-provider journeys (e2e/oidc/): the production server configured for OpenID Connect against
 * `oidc-provider` (server/testing/oidc-test-provider.ts) on loopback, which signs its ID tokens for real. The app
 * is reached as `localhost` and the provider as `127.0.0.1`: two sites, as a company's provider and Mirrorboard
 * are, so the SameSite rules of the cookies are exercised as they are in production.
 */

const port = Number(process.env.E2E_PORT ?? 3320)
const providerPort = Number(process.env.E2E_OIDC_PORT ?? port + 1)
const appUrl = `http://localhost:${port}`
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'mirrorboard-e2e-oidc-'))
process.env.E2E_DATA_DIR = dataDir
const operatorToken = (process.env.E2E_OPERATOR_TOKEN ??= 'e2e-operator-token')
const viewerToken = (process.env.E2E_VIEWER_TOKEN ??= 'e2e-viewer-token')
process.env.E2E_OIDC_ISSUER = `http://127.0.0.1:${providerPort}`
const clientSecret = 'e2e-oidc-client-secret'
process.env.E2E_OIDC_CLIENT_SECRET = clientSecret

const rolesFile = path.join(dataDir, 'roles.yaml')
writeFileSync(
  rolesFile,
  `# e2e: alice (dr-eu) operates the mirrors into eu-west and views the rest; bob (platform) administers; dave (readers) views;
# erin (eu-only) operates the mirrors into eu-west and sees nothing else.
rules:
  - group: dr-eu
    role: operator
    mirrors: [".*-to-eu-west"]
  - group: dr-eu
    role: viewer
  - group: platform
    role: admin
  - group: readers
    role: viewer
  - group: eu-only
    role: operator
    mirrors: [".*-to-eu-west"]
`,
)

export default defineConfig({
  testDir: './e2e/oidc',
  outputDir: './test-results/e2e-oidc',
  workers: 1,
  timeout: 60_000,
  forbidOnly: true,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report-oidc' }]],
  use: { baseURL: appUrl, screenshot: 'only-on-failure', trace: traceMode(), launchOptions: chromiumLaunchOptions },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } },
    { name: 'phone', use: { ...devices['Pixel 7'], viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 }, grepInvert: /@wide-only/ },
  ],
  webServer: [
    {
      command: `node --conditions=react-server --import tsx server/testing/oidc-test-provider-child.ts ${providerPort} mirrorboard-e2e ${clientSecret} ${appUrl}`,
      url: `http://127.0.0.1:${providerPort}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'pipe',
    },
    {
      command: `node --import tsx server/main.ts -H 127.0.0.1 -p ${port}`,
      url: `http://127.0.0.1:${port}/api/v1/health`,
      reuseExistingServer: false,
      timeout: 90_000,
      stdout: 'pipe',
      env: {
        MIRRORBOARD_DATA_DIR: dataDir,
        MIRRORBOARD_OPERATOR_TOKEN: operatorToken,
        MIRRORBOARD_VIEWER_TOKEN: viewerToken,
        MIRRORBOARD_CHECK_RESPONSES: '1',
        MIRRORBOARD_TRUST_PROXY: '1',
        MIRRORBOARD_OIDC_ISSUER: `http://127.0.0.1:${providerPort}`,
        MIRRORBOARD_OIDC_CLIENT_ID: 'mirrorboard-e2e',
        MIRRORBOARD_OIDC_CLIENT_SECRET: clientSecret,
        MIRRORBOARD_OIDC_PROVIDER_NAME: 'Test IdP',
        MIRRORBOARD_PUBLIC_URL: appUrl,
        MIRRORBOARD_ROLES_FILE: rolesFile,
      },
    },
  ],
})
