/**
 * A GET the page starts from an inline script in its HTML, before any bundle has loaded or hydrated, so a
 * large first answer (a 10,000-partition list) travels while the JavaScript does; the hook that needs it
 * takes the response instead of sending the request again (callEndpoint's `response` option). Only for the
 * first load of a page: a client-side navigation runs no inline script and the hook fetches as usual.
 */

const KEY = '__mirrorboardEarlyFetches'

type EarlyFetches = Record<string, Promise<Response> | undefined>

/** The script's text: the same request callEndpoint would send (same credentials, same Accept). */
export function earlyFetchScript(url: string): string {
  const target = JSON.stringify(url)
  return `(window.${KEY}=window.${KEY}||{})[${target}]=fetch(${target},{headers:{accept:'application/json'},credentials:'same-origin',cache:'no-store'})`
}

/** The early response for `url`, once: a later refetch must ask the server again. */
export function takeEarlyResponse(url: string): Promise<Response> | undefined {
  if (typeof window === 'undefined') return undefined
  const fetches = (window as unknown as Record<string, EarlyFetches | undefined>)[KEY]
  const response = fetches?.[url]
  if (fetches !== undefined) delete fetches[url]
  return response
}
