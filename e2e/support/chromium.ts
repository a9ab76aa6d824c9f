/** Debian's Chromium, never a downloaded browser; the flags keep it off the (closed) network. Both Playwright configs use it. */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
}

/** Playwright's trace setting for both configs: `E2E_TRACE` (e.g. `off`, `on`), or a trace kept for each failure. */
export function traceMode(): 'off' | 'on' | 'retain-on-failure' | 'on-first-retry' {
  const chosen = process.env.E2E_TRACE
  return chosen === 'off' || chosen === 'on' || chosen === 'on-first-retry' ? chosen : 'retain-on-failure'
}
