// No `import 'server-only'`: server/main.ts imports this module outside Next's bundles, where that package
// throws on purpose. It is server code all the same (node:crypto); app/layout.tsx reads only the header name.
import { randomBytes } from 'node:crypto'

/**
 * The headers every answer carries, pages, API and errors alike, set by server/main.ts before Next's handler
 * runs. Pages get a fresh script nonce per request: main.ts also puts the policy on the *request*, where Next
 * reads it (getScriptNonceFromHeaders) and marks its own inline scripts with it; the root layout reads
 * NONCE_REQUEST_HEADER for the theme script.
 */

/** Request header carrying this request's nonce to the root layout (always overwritten: a client cannot pick it). */
export const NONCE_REQUEST_HEADER = 'x-mirrorboard-nonce'

/**
 * Run in the page before any bundle (app/layout.tsx, with the nonce). zod 4 compiles object parsers with
 * `new Function` and probes for it when the first schema is built; under this policy (no 'unsafe-eval') the
 * probe fails and zod falls back to plain parsing anyway, but Chromium reports the attempt as a violation.
 * `jitless` skips the probe. It is zod's config object (what `z.config({ jitless: true })` writes), set here
 * because it must exist before the first schema module is evaluated, whichever bundle loads first.
 */
export const BROWSER_ZOD_JITLESS_SCRIPT = 'globalThis.__zod_globalConfig=Object.assign(globalThis.__zod_globalConfig||{},{jitless:true})'

/** 128 random bits, as the CSP spec asks of a nonce. */
export function newNonce(): string {
  return randomBytes(16).toString('base64')
}

/** With a nonce: scripts of this answer only. Without (`next start` alone): any inline script of ours. */
export function contentSecurityPolicy(nonce: string | null): string {
  return [
    "default-src 'self'",
    // Same-origin chunks plus inline scripts carrying this request's nonce (Next's flight data, the theme script).
    nonce === null ? "script-src 'self' 'unsafe-inline'" : `script-src 'self' 'nonce-${nonce}'`,
    // 'unsafe-inline' for styles only: React renders style attributes into the HTML (xyflow positions its
    // nodes and edges that way, charts and bars set widths and heights), and a nonce cannot cover an
    // attribute. A style cannot run script; what stays closed is script, frames, plugins and other origins.
    "style-src 'self' 'unsafe-inline'",
    // data: for the small images libraries inline in their CSS; still nothing from another origin.
    "img-src 'self' data:",
    "font-src 'self'",
    // fetch() and the EventSource of /api/v1/events.
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * Whether the browser reached us over TLS: a TLS socket, or a proxy in front that terminated TLS and says so
 * with `X-Forwarded-Proto: https` (first value, as auth.ts reads it for the cookie's Secure flag). server/main.ts
 * removes that header unless MIRRORBOARD_TRUST_PROXY=1 (proxy-headers.ts), so only a trusted proxy says it.
 */
export function isTlsRequest(forwardedProto: string | string[] | undefined, encryptedSocket: boolean): boolean {
  if (encryptedSocket) return true
  const value = Array.isArray(forwardedProto) ? forwardedProto[0] : forwardedProto
  return value?.split(',')[0]?.trim() === 'https'
}

export interface SecurityHeaders {
  'Content-Security-Policy': string
  'X-Content-Type-Options': 'nosniff'
  'Referrer-Policy': 'no-referrer'
  'Strict-Transport-Security'?: string
}

/**
 * What next.config.ts sets on every answer, so `next start` without server/main.ts never serves without
 * them: the same headers, and a policy without a nonce (a static config cannot make one per request), whose
 * script-src therefore allows inline scripts. server/main.ts keeps its per-request policy over this one.
 */
export function staticSecurityHeaders(): Array<{ key: string; value: string }> {
  return [
    { key: 'Content-Security-Policy', value: contentSecurityPolicy(null) },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'Referrer-Policy', value: 'no-referrer' },
  ]
}

export function securityHeaders(nonce: string, tls: boolean): SecurityHeaders {
  const headers: SecurityHeaders = {
    'Content-Security-Policy': contentSecurityPolicy(nonce),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  }
  // One year, the host only: subdomains may be other people's services.
  if (tls) headers['Strict-Transport-Security'] = 'max-age=31536000'
  return headers
}
