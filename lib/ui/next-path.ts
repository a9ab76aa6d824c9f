/**
 * Where the sign-in page sends the user once signed in (`/login?next=…`): a path of this app, never another
 * origin. The value comes from a link anyone can send, so it is resolved the way a browser would resolve it
 * from one of our pages and kept only when it stays on our origin. Backslashes (which browsers read as `/`:
 * `/\host` is `//host`) and control characters (which browsers drop: `/<TAB>/host` is `//host`) are refused
 * outright, whatever they would resolve to.
 */

const OWN_ORIGIN = 'http://mirrorboard.invalid'
const UNSAFE = /[\\\u0000-\u001f\u007f-\u009f]/
export const DEFAULT_NEXT = '/'

export function safeNextPath(value: string | readonly string[] | undefined | null): string {
  const next = typeof value === 'string' ? value : value?.[0]
  if (next === undefined || next === null || !next.startsWith('/') || UNSAFE.test(next)) return DEFAULT_NEXT
  let url: URL
  try {
    url = new URL(next, `${OWN_ORIGIN}/login`)
  } catch {
    return DEFAULT_NEXT
  }
  if (url.origin !== OWN_ORIGIN) return DEFAULT_NEXT
  const path = `${url.pathname}${url.search}${url.hash}`
  // A path that starts with `//` once normalised (`/.//host`) would read as another host if used as a URL.
  return path.startsWith('//') ? DEFAULT_NEXT : path
}
