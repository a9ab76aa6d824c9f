// Issue #41 item 6: a malformed percent-encoding in a page URL is a page that does not exist, not a server error.
import { expect, it } from 'vitest'
import { bearer, send, signIn, target } from './support'

it('answers 404 for malformed percent-encodings in page and API URLs', async () => {
  const { cookie } = await signIn(target.viewerToken, '127.0.0.71')
  const paths = ['/mirrors/%E0%A4%A', '/mirrors/%E0%A4%A/topics', '/clusters/%ZZ', '/operations/%', '/%C0%AF', '/api/v1/clusters/%E0%A4%A', '/api/v1/mirrors/%FF/partitions']
  for (const path of paths) {
    for (const headers of [{ cookie: cookie ?? '' }, bearer(target.viewerToken), {}]) {
      const answer = await send(path, { headers, from: '127.0.0.71' })
      expect(answer.status, `${path} ${Object.keys(headers).join()}`).toBe(404)
    }
  }
  expect((await send('/api/v1/clusters/%E0%A4%A', { headers: bearer(target.viewerToken), from: '127.0.0.71' })).body).toContain('NOT_FOUND')
})
