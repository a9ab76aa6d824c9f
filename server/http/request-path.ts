// No `server-only` marker: server/main.ts imports this outside Next's bundles.

/**
 * Whether a request target's path has a percent-encoding that does not decode (`/mirrors/%E0%A4%A`, `/%ZZ`).
 * Next.js decodes route parameters and threw URIError on these: a 500 for what is a page that cannot exist.
 * server/main.ts answers them 404 before Next sees them.
 */
export function hasMalformedPath(target: string | undefined): boolean {
  const path = (target ?? '/').split('?', 1)[0] ?? '/'
  try {
    decodeURIComponent(path)
    return false
  } catch {
    return true
  }
}

/** What a page request with such a path is rewritten to, so Next answers its own not-found page (404). */
export const NOT_FOUND_PAGE_PATH = '/_mirrorboard/not-found'
