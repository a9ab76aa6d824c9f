// Issue #41 item 2: `/login?next=…` must send a signing-in operator only to a page of this app.
import { expect, it } from 'vitest'
import { send, signIn, target } from './support'

const FORMS = ['/\\evil.example', '/%5Cevil.example', '/%09/evil.example', '/%0a/evil.example', '//evil.example', '/%2F/evil.example', 'https://evil.example/', '/\\/evil.example', '/%5C%5Cevil.example', '%2F%2Fevil.example']

/** Where a browser goes with `value` as the target of a navigation from the app's own page. */
function landsOn(value: string): string {
  // Browsers strip tabs and newlines from URLs before parsing them; the WHATWG parser reads `\` as `/`.
  return new URL(value.replace(/[\t\n\r]/g, ''), `${target.url}/login`).origin
}

it('lands every redirect form on the app’s own origin: the sign-in form, and “Continue” once signed in', async () => {
  const { cookie } = await signIn(target.viewerToken, '127.0.0.21')
  expect(cookie).not.toBeNull()
  const own = new URL(target.url).origin
  for (const form of FORMS) {
    for (const headers of [{ cookie: cookie ?? '' }, {}] as Array<Record<string, string>>) {
      const page = await send(`/login?next=${form}`, { headers, from: '127.0.0.21' })
      expect(page.status, form).toBe(200)
      const hrefs = [...page.body.matchAll(/<a[^>]*href="([^"]*)"[^>]*>Continue<\/a>/g)].map((match) => decodeEntities(match[1] ?? ''))
      if ('cookie' in headers) expect(hrefs.length, `${form}: Continue is offered when signed in`).toBe(1)
      for (const href of hrefs) expect(landsOn(href), form).toBe(own)
      const next = /<form[^>]*data-next="([^"]*)"/.exec(page.body)?.[1]
      expect(next, `${form}: the sign-in form names where it goes`).toBeDefined()
      expect(landsOn(decodeEntities(next ?? '')), form).toBe(own)
    }
  }
  // A same-origin destination is kept, query and all.
  const page = await send(`/login?next=${encodeURIComponent('/mirrors/dr?tab=partitions')}`, { from: '127.0.0.21' })
  expect(decodeEntities(/<form[^>]*data-next="([^"]*)"/.exec(page.body)?.[1] ?? '')).toBe('/mirrors/dr?tab=partitions')
})

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>')
}
