/**
 * Whether a request most likely comes from a phone, for the first render only: the server cannot measure the
 * screen, and a layout it guesses wrong is switched by the browser after hydration. That switch is what this
 * avoids on phones: the partition table rendered as desktop rows, then again as cards, rewrote every row's DOM in
 * one long task while the page loaded. Chromium's client hint (`Sec-CH-UA-Mobile: ?1`) when sent, else the user
 * agent's own "Mobile" / "iPhone" marker (tablets send neither, and get the desktop layout first, as before).
 */
export function looksLikePhone(userAgent: string | null | undefined, mobileHint: string | null | undefined): boolean {
  if (mobileHint === '?1') return true
  if (mobileHint === '?0') return false
  return userAgent != null && /\b(Mobile|iPhone|iPod)\b/.test(userAgent) && !/\biPad\b/.test(userAgent)
}
