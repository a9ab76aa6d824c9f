import { expect, type APIRequestContext, type Page } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './http'

/** Two clusters, a topic and a mirror between them, made through the API with names no other test uses. */
export interface MirroredPair {
  source: string
  destination: string
  mirror: string
  topic: string
}

export async function createMirroredPair(request: APIRequestContext, topicPartitions = 2): Promise<MirroredPair> {
  const pair = { source: unique('east'), destination: unique('west'), mirror: unique('dr'), topic: 'orders' }
  await createCluster(request, pair.source)
  await createCluster(request, pair.destination)
  await createTopic(request, pair.source, pair.topic, topicPartitions)
  await okJson(
    await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: pair.mirror, sourceCluster: pair.source, destinationCluster: pair.destination, topics: [pair.topic] } }),
    201,
  )
  await expectPartitions(request, pair.mirror, 'MIRRORING', topicPartitions)
  return pair
}

/** Waits until `count` partitions of the mirror are in `state` (the engine ticks in the background). */
export async function expectPartitions(request: APIRequestContext, mirror: string, state: string, count: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const { partitions } = await okJson<{ partitions: Array<{ state: string }> }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))
        return partitions.filter((partition) => partition.state === state).length
      },
      { timeout: 30_000, intervals: [100, 250, 500] },
    )
    .toBe(count)
}

/**
 * The header's controls end inside its padding at any width: the live status, the alert bell's count and the
 * role badge grow with what happens elsewhere (other journeys' alerts, a reconnecting stream), and a row that
 * pokes into the padding is the first pixels of a sideways scroll (the full run scrolled 4 px at 390).
 */
export async function expectHeaderFits(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => {
    const row = document.querySelector('header > div')
    if (row === null) return 0
    const contentRight = row.getBoundingClientRect().right - parseFloat(getComputedStyle(row).paddingRight)
    const boxes = [...row.children, ...(row.lastElementChild?.children ?? [])]
    return Math.max(0, ...boxes.map((box) => box.getBoundingClientRect().right - contentRight))
  })
  expect(overflow, 'header controls past the header padding (px)').toBeLessThanOrEqual(0.5)
}

/** The page never scrolls sideways (UI.md §3): wide tables and the graph scroll inside their own boxes. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
}
