import { expect, test } from '@playwright/test'
import { rowsInView, setUpMirror } from './mirror-support'
import { signIn } from './support/session'

/**
 * A large mirror renders, scrolls to its last partition and keeps far fewer rows in the DOM than it has
 * partitions (virtualized). Desktop only (the phone project ignores this file, playwright.config.ts): its
 * setup is the heavy part. 2,000 partitions here keep CI's run short (the API sets them up in ~10 s);
 * the 10,000-partition page is measured by `npm run bench -- ui`.
 */
const TOPICS = { 'scale-a': 1000, 'scale-b': 1000 }
const PARTITIONS = 2000

test('a 2,000-partition mirror renders, scrolls to its last partition, with far fewer rows in the DOM', async ({ page, request }) => {
  test.setTimeout(180_000)
  const { mirror } = await setUpMirror(request, TOPICS)
  await signIn(page, 'viewer', `/mirrors/${mirror}`)
  await expect(page.getByTestId('partition-count')).toHaveText(`${PARTITIONS.toLocaleString('en-US')} partitions`, { timeout: 30_000 })
  const scroll = page.getByTestId('partition-scroll')
  await expect(scroll).toHaveAttribute('aria-rowcount', String(PARTITIONS + 1))
  const first = await rowsInView(page)
  expect(first[0]).toBe('scale-a/0')
  expect(first.length).toBeLessThan(60)

  await scroll.evaluate((element) => element.scrollTo({ top: element.scrollHeight }))
  await expect(page.locator('[data-partition="scale-b/999"]')).toBeVisible()
  const last = await rowsInView(page)
  expect(last.at(-1)).toBe('scale-b/999')
  expect(last.length).toBeLessThan(60)
  expect(last).not.toContain('scale-a/0')

  await test.step('sorting the whole list still shows the right last row', async () => {
    await page.getByRole('button', { name: /^Topic/ }).click()
    await expect(page.getByRole('columnheader', { name: /^Topic/ })).toHaveAttribute('aria-sort', 'descending')
    await scroll.evaluate((element) => element.scrollTo({ top: element.scrollHeight }))
    await expect(page.locator('[data-partition="scale-a/0"]')).toBeVisible()
    expect((await rowsInView(page)).at(-1)).toBe('scale-a/0')
  })
})
