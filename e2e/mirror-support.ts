import { expect, type APIRequestContext, type Page } from '@playwright/test'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './support/http'

/** Setup for the mirror page journeys, through the HTTP API: two clusters, topics, a mirror, all MIRRORING. */

export interface MirrorSetup {
  mirror: string
  source: string
  destination: string
  topics: Record<string, number>
}

export async function setUpMirror(request: APIRequestContext, topics: Record<string, number>, options: { extraSourceTopics?: Record<string, number> } = {}): Promise<MirrorSetup> {
  const source = unique('src')
  const destination = unique('dst')
  const mirror = unique('mirror')
  // One broker each: the journeys are about the page, and a cluster of one starts fastest.
  await createCluster(request, source, { brokers: 1 })
  await createCluster(request, destination, { brokers: 1 })
  for (const [topic, partitions] of Object.entries({ ...topics, ...options.extraSourceTopics })) await createTopic(request, source, topic, partitions)
  await okJson(
    await request.post('/api/v1/mirrors', {
      headers: asOperator,
      data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: Object.keys(topics) },
      timeout: 120_000,
    }),
    201,
  )
  const total = Object.values(topics).reduce((sum, count) => sum + count, 0)
  await waitForStates(request, mirror, { MIRRORING: total })
  return { mirror, source, destination, topics }
}

export async function waitForStates(request: APIRequestContext, mirror: string, wanted: Record<string, number>, timeout = 60_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const summary = await okJson<{ partitionsByState: Record<string, number> }>(await request.get(`/api/v1/mirrors/${mirror}`, { headers: asViewer }))
        return summary.partitionsByState
      },
      { timeout, intervals: [200, 500, 1000] },
    )
    .toEqual(wanted)
}

export async function produce(request: APIRequestContext, cluster: string, topic: string, partition: number, count: number): Promise<void> {
  await okJson(
    await request.post(`/api/v1/clusters/${cluster}/topics/${topic}/records`, {
      headers: asOperator,
      data: { partition, records: Array.from({ length: count }, (_, index) => ({ key: `k${index}`, value: `value ${index}` })) },
    }),
  )
}

/** The data-partition attributes of the rows in the DOM, in screen order (rows are absolutely placed). */
export async function rowsInView(page: Page): Promise<string[]> {
  return page.locator('[data-partition]').evaluateAll((rows) =>
    rows
      .map((row) => ({ key: row.getAttribute('data-partition') ?? '', top: row.getBoundingClientRect().top }))
      .sort((a, b) => a.top - b.top)
      .map((row) => row.key),
  )
}

export function row(page: Page, topic: string, partition: number) {
  return page.locator(`[data-partition="${topic}/${partition}"]`)
}
