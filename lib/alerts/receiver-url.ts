/**
 * Receiver URLs hold secrets: a user and password, a token in the path (a Slack incoming webhook is
 * `/services/T…/B…/<secret>`), keys in the query. The API, the audit log and the server's log show only the
 * redacted form; the full URL stays in the receivers file (mode 0600) and in the request that posts to it.
 */

export type ReceiverUrlCheck = { ok: true; url: URL } | { ok: false; reason: string }

export function checkReceiverUrl(text: string): ReceiverUrlCheck {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, reason: 'is not an absolute URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `must be http or https, not ${url.protocol.replace(/:$/, '')}` }
  if (url.hostname === '') return { ok: false, reason: 'has no host' }
  return { ok: true, url }
}

/** A path segment shown as it is: a short lower-case word (`services`, `api`, `v2`, `alerts`, `hooks`), never a token. */
const PLAIN_SEGMENT = /^[a-z][a-z0-9._-]{0,19}$/

function plain(segment: string): boolean {
  return PLAIN_SEGMENT.test(segment) && (segment.match(/[0-9]/g)?.length ?? 0) <= 2
}

/**
 * `https://user:pass@hooks.example.com/services/T0/B0/XyZ?key=abc#x` becomes
 * `https://***@hooks.example.com/services/` + `***` for each token segment + `?key=***`.
 * Scheme, host and port stay (they say where alerts go); credentials, every path segment but short
 * lower-case words, and every query value go; so does the fragment.
 */
export function redactUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return '***'
  }
  const credentials = url.username !== '' || url.password !== '' ? '***@' : ''
  const path = url.pathname
    .split('/')
    .map((segment) => (segment === '' || plain(segment) ? segment : '***'))
    .join('/')
  const query = [...url.searchParams.keys()].map((key) => `${plain(key) ? key : '***'}=***`).join('&')
  return `${url.protocol}//${credentials}${url.host}${path}${query === '' ? '' : `?${query}`}`
}

/** Anything that looks like a URL in a string is redacted (for audit entries and log lines written from free text). */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (match) => redactUrl(match))
}
