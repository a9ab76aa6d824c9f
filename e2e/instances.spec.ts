import { expect, test } from '@playwright/test'
import { asViewer, okJson } from './support/http'
import { lookAt } from './support/look'
import { createMirroredPair, expectNoSidewaysScroll } from './support/overview-setup'
import { signIn } from './support/session'

/**
 * /instances (issue #40 item 5) on a single instance, the server the journeys start (no MIRRORBOARD_CONTROL_BOOTSTRAP):
 * reached from the overview, it lists this instance alive with the mirrors it runs as links, and says plainly that
 * it runs every mirror and how to share the work.
 */
test('the instances page shows this instance alive, running the mirror just created', async ({ page, request }, testInfo) => {
  test.setTimeout(90_000)
  const pair = await createMirroredPair(request, 1)
  const { version } = await okJson<{ instances: Array<{ version: string }> }>(await request.get('/api/v1/instances', { headers: asViewer })).then((list) => list.instances[0]!)

  await signIn(page, 'viewer', '/')
  await page.getByRole('link', { name: 'Instances', exact: true }).click()
  await expect(page).toHaveURL(/\/instances$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Instances' })).toBeVisible()

  await expect(page.getByTestId('single-instance')).toContainText('this instance runs every mirror')
  await expect(page.getByTestId('single-instance')).toContainText('MIRRORBOARD_CONTROL_BOOTSTRAP')
  await expect(page.getByTestId('single-instance')).toContainText('docs/high-availability.md')

  const instances = page.getByTestId('instance')
  await expect(instances).toHaveCount(1)
  const self = instances.first()
  await expect(self).toContainText('This instance')
  await expect(self.getByTestId('instance-status')).toHaveText('●Alive')
  await expect(self.getByTestId('instance-version')).toHaveText(version)
  await expect(self.getByTestId('instance-heartbeat')).toContainText('reports to no group')
  const mirrorLink = self.getByRole('list', { name: 'Mirrors run by this instance' }).getByRole('link', { name: pair.mirror, exact: true })
  await expect(mirrorLink).toBeVisible()
  await expectNoSidewaysScroll(page)
  await lookAt(page, testInfo, 'instances')

  await mirrorLink.click()
  await expect(page).toHaveURL(new RegExp(`/mirrors/${pair.mirror}$`))
})
