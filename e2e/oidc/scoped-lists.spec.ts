import { expect, test } from '@playwright/test'
import { okJson } from '../support/http'
import { lookAt } from '../support/look'
import { scopedMirrors, signInThroughProvider } from './provider-support'

/**
 * A person whose only role is scoped to some mirrors (erin: operator on `.*-to-eu-west`, playwright.oidc.config.ts)
 * sees those and nothing else (issue #39): the mirrors index and the overview list the mirror in scope and not the
 * other, the API's lists agree, and the other mirror's page says it is outside her scope instead of showing it.
 */

test('a person scoped to some mirrors sees those only, in the lists, on the pages and through the API', async ({ page }, testInfo) => {
  const { inScope, outOfScope } = await scopedMirrors(page, 'none')

  await signInThroughProvider(page, 'erin', '/mirrors')
  await expect(page).toHaveURL(/\/mirrors$/)
  await expect(page.getByTestId('signed-in-name')).toHaveText('Erin Scoped')
  await expect(page.getByRole('link', { name: inScope }).first()).toBeVisible()
  expect(await page.content()).not.toContain(outOfScope)
  await lookAt(page, testInfo, 'oidc-scoped-mirrors')

  const mirrors = await okJson<{ mirrors: Array<{ name: string }> }>(await page.request.get('/api/v1/mirrors'))
  expect(mirrors.mirrors.map((mirror) => mirror.name)).toContain(inScope)
  expect(mirrors.mirrors.map((mirror) => mirror.name)).not.toContain(outOfScope)
  expect((await okJson<{ clusters: unknown[] }>(await page.request.get('/api/v1/clusters'))).clusters).toEqual([])

  await page.goto('/')
  await expect(page.getByText(inScope).first()).toBeVisible()
  expect(await page.content()).not.toContain(outOfScope)

  await page.goto(`/mirrors/${outOfScope}`)
  await expect(page.getByRole('heading', { name: `Mirror ${outOfScope} is outside your scope` })).toBeVisible()
  await expect(page.getByText(`Your viewer role does not extend to mirror ${outOfScope}.`)).toBeVisible()
  await lookAt(page, testInfo, 'oidc-scoped-out-of-scope')
})
