/**
 * Whether a click on a link starts a navigation the app router makes inside this tab (links do not prefetch, so
 * the page waits for the server's answer with nothing on screen unless we say so). Returns the target's path and
 * query, or null for clicks the browser deals with otherwise: a modified or non-primary click (new tab or window), a
 * `target` other than this frame, a download, another origin, or a link to where the page already is (the same path
 * and query; a hash alone only scrolls). A prevented default is no sign: Next's <Link> prevents it to navigate
 * itself; the one handler that cancels a link's click (the topology graph's drag) also stops its propagation, so
 * the click never reaches a listener on the document.
 */
export interface LinkClick {
  button: number
  metaKey: boolean
  ctrlKey: boolean
  shiftKey: boolean
  altKey: boolean
}

export interface LinkTarget {
  href: string | null
  target: string | null
  download: boolean
}

export function navigationTarget(click: LinkClick, link: LinkTarget, current: string): string | null {
  if (click.button !== 0) return null
  if (click.metaKey || click.ctrlKey || click.shiftKey || click.altKey) return null
  if (link.href === null || link.download) return null
  if (link.target !== null && link.target !== '' && link.target !== '_self') return null
  let here: URL
  let there: URL
  try {
    here = new URL(current)
    there = new URL(link.href, here)
  } catch {
    return null
  }
  if (there.origin !== here.origin) return null
  if (there.protocol !== 'http:' && there.protocol !== 'https:') return null
  const to = there.pathname + there.search
  if (to === here.pathname + here.search) return null
  return to
}
