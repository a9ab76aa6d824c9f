import { defineConfig, devices } from '@playwright/test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromiumLaunchOptions, traceMode } from './e2e/support/chromium'

const port = Number(process.env.E2E_PORT ?? 3310)
// Every run gets a fresh data dir so journeys never see state left by an earlier run.
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'mirrorboard-e2e-'))
process.env.E2E_DATA_DIR = dataDir
// Known tokens, so journeys can sign in; the server would otherwise generate its own at first start.
const operatorToken = (process.env.E2E_OPERATOR_TOKEN ??= 'e2e-operator-token')
const viewerToken = (process.env.E2E_VIEWER_TOKEN ??= 'e2e-viewer-token')

export default defineConfig({
  testDir: './e2e',
  // e2e/demo/ needs a server in demo mode: playwright.demo.config.ts runs it; e2e/oidc/ one signing in through
  // the test identity provider: playwright.oidc.config.ts.
  testIgnore: ['demo/**', 'oidc/**', /\/e2e\/ha\//],
  outputDir: './test-results/e2e',
  workers: 1,
  timeout: 60_000,
  forbidOnly: true,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // lookAt (e2e/support/look.ts) saves the screenshots a person looks at; a failure gets one of its own.
    screenshot: 'only-on-failure',
    // Recording a trace of every journey, kept only for those that fail, cost 40–45 % of the browser's CPU
    // (mirror-page.spec.ts: 34–42 CPU s against 21–23 s without). `npm test` turns it off (E2E_TRACE=off): no one
    // opens a clean clone's trace; its failure keeps the screenshot and the error context.
    trace: traceMode(),
    launchOptions: chromiumLaunchOptions,
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } },
    // The HTTP API suite has no viewport: it runs once, in the desktop project; so do the heavy-setup specs.
    // A project's testIgnore replaces the config's, so the demo-mode folder is named again here.
    {
      name: 'phone',
      // At the Pixel's device scale (2.625) Chromium rasterised and the screenshots encoded 6.9 times the pixels of
      // the same 390x844 layout, in software: the phone journeys cost about a seventh more CPU for sharper text
      // alone. Layout, touch and the mobile user agent are the same at 1.
      use: { ...devices['Pixel 7'], viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 },
      // So do the checks that do not depend on the viewport (security headers, CSP), and tests tagged @wide-only:
      // functional journeys whose pages another test already shows at this size.
      testIgnore: [/\/demo\//, /\/oidc\//, /\/e2e\/ha\//, /api(-[a-z]+)*\.spec\.ts$/, /security-headers\.spec\.ts$/, /mirror-scale\.spec\.ts$/, /failover-reload\.spec\.ts$/],
      grepInvert: /@wide-only/,
    },
  ],
  webServer: {
    command: `node --import tsx server/main.ts -H 127.0.0.1 -p ${port}`,
    url: `http://127.0.0.1:${port}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 90_000,
    stdout: 'pipe',
    // MIRRORBOARD_TRUST_PROXY: e2e/api-security-headers.spec.ts plays the TLS proxy in front (X-Forwarded-Proto).
    env: { MIRRORBOARD_DATA_DIR: dataDir, MIRRORBOARD_OPERATOR_TOKEN: operatorToken, MIRRORBOARD_VIEWER_TOKEN: viewerToken, MIRRORBOARD_CHECK_RESPONSES: '1', MIRRORBOARD_TRUST_PROXY: '1' },
  },
})
