import { expect, type Page } from '@playwright/test'
import { asOperator, createCluster, createTopic, okJson, unique } from '../support/http'

/** The OIDC journeys' shared steps: signing in at the test provider (playwright.oidc.config.ts) and the scoped mirrors. */

export const issuer = process.env.E2E_OIDC_ISSUER ?? ''
export const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }

/** Through the login page's provider link and the provider's own form (test users' passwords are `<name>-pass`). */
export async function signInThroughProvider(page: Page, username: string, next = '/'): Promise<void> {
  await page.goto(`/login${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`)
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click()
  await expect(page).toHaveURL(new RegExp(`^${issuer.replace(/[.]/g, '\\.')}/interaction/`))
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(`${username}-pass`)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

export async function mirrorStates(page: Page, mirror: string): Promise<string[]> {
  return (await okJson<{ partitions: Array<{ state: string }> }>(await page.request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asOperator }))).partitions.map((p) => p.state)
}

/**
 * One source topic mirrored into two destinations: `<x>-to-eu-west` (inside the scoped people's grants) and
 * `<x>-to-us-east` (outside them). `settled` names the mirrors to wait for until MIRRORING.
 */
export async function scopedMirrors(page: Page, settled: 'none' | 'inScope' | 'both'): Promise<{ inScope: string; outOfScope: string }> {
  const source = unique('src')
  await createCluster(page.request, source)
  await createTopic(page.request, source, 'orders')
  const inScope = `${unique('orders')}-to-eu-west`
  const outOfScope = `${unique('orders')}-to-us-east`
  for (const name of [inScope, outOfScope]) {
    const destination = unique('dst')
    await createCluster(page.request, destination)
    await okJson(await page.request.post('/api/v1/mirrors', { headers: asOperator, data: { name, sourceCluster: source, destinationCluster: destination, topics: ['orders'] } }), 201)
  }
  const waitFor = settled === 'none' ? [] : settled === 'inScope' ? [inScope] : [inScope, outOfScope]
  for (const name of waitFor) await expect.poll(async () => mirrorStates(page, name), SETTLE).toEqual(['MIRRORING'])
  return { inScope, outOfScope }
}
