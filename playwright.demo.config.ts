import { defineConfig, devices } from '@playwright/test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromiumLaunchOptions, traceMode } from './e2e/support/chromium'

/**
 * Journeys against a server in demo mode (MIRRORBOARD_DEMO=1: live clusters, workloads, faults, scenarios):
 * `npx playwright test -c playwright.demo.config.ts`, after `npx next build`. The specs live in e2e/demo/;
 * playwright.config.ts leaves them out, its server runs without the demo.
 */

const port = Number(process.env.E2E_DEMO_PORT ?? Number(process.env.E2E_PORT ?? 3310) + 1000)
const dataDir = process.env.E2E_DEMO_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'mirrorboard-e2e-demo-'))
process.env.E2E_DEMO_DATA_DIR = dataDir
const operatorToken = (process.env.E2E_OPERATOR_TOKEN ??= 'e2e-operator-token')
const viewerToken = (process.env.E2E_VIEWER_TOKEN ??= 'e2e-viewer-token')

export default defineConfig({
  testDir: './e2e/demo',
  outputDir: './test-results/e2e-demo',
  workers: 1,
  timeout: 90_000,
  forbidOnly: true,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report-demo' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    // Recording a trace of every journey, kept only for those that fail, cost 40–45 % of the browser's CPU
    // (mirror-page.spec.ts: 34–42 CPU s against 21–23 s without). `npm test` turns it off (E2E_TRACE=off): no one
    // opens a clean clone's trace; its failure keeps the screenshot and the error context.
    trace: traceMode(),
    launchOptions: chromiumLaunchOptions,
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], viewport: { width: 1440, height: 900 } } },
    { name: 'phone', use: { ...devices['Pixel 7'], viewport: { width: 390, height: 844 } }, testIgnore: /api(-[a-z]+)?\.spec\.ts$/ },
  ],
  webServer: {
    command: `node --import tsx server/main.ts -H 127.0.0.1 -p ${port}`,
    url: `http://127.0.0.1:${port}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    env: {
      MIRRORBOARD_DEMO: '1',
      MIRRORBOARD_URL: `http://127.0.0.1:${port}`,
      MIRRORBOARD_DATA_DIR: dataDir,
      MIRRORBOARD_OPERATOR_TOKEN: operatorToken,
      MIRRORBOARD_VIEWER_TOKEN: viewerToken,
      MIRRORBOARD_CHECK_RESPONSES: '1',
    },
  },
})
