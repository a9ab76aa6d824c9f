import { expect, type APIRequestContext } from '@playwright/test'
import { WORKED_EXAMPLE, type WorkedExampleStep } from '../../lib/mirror/worked-example'
import { asOperator, asViewer, createCluster, createTopic, okJson, unique } from './http'

/**
 * The KIP's worked example (lib/mirror/worked-example.ts) set up through the API for the wizard journeys:
 * source producers 4001/4002/4003, the mirror copies offsets 0–2 and is paused, then the source goes on:
 *   0 DATA 4001 A=1 · 1 DATA 4001 B=2 · 2 DATA 4002 X=9 · 3 COMMIT 4001 · 4 DATA 4003 Y=5 · 5 DATA none Z=10
 */

export const SETTLE = { timeout: 30_000, intervals: [100, 200, 250] }

export interface WorkedExample {
  source: string
  destination: string
  mirror: string
  topic: 'orders'
}

interface PartitionState {
  state: string
  destinationLogEndOffset: number
}

export async function mirrorStates(request: APIRequestContext, mirror: string): Promise<PartitionState[]> {
  return (await okJson<{ partitions: PartitionState[] }>(await request.get(`/api/v1/mirrors/${mirror}/partitions`, { headers: asViewer }))).partitions
}

export async function workedExample(request: APIRequestContext, prefix = 'wx'): Promise<WorkedExample> {
  const source = unique(`${prefix}-a`)
  const destination = unique(`${prefix}-b`)
  const mirror = unique(`${prefix}-dr`)
  const { topic, transactionalIds, stepsBeforeMirroring, stepsAfterPause, mirroredLogEndOffset } = WORKED_EXAMPLE
  await createCluster(request, source, { brokers: 1, firstProducerId: WORKED_EXAMPLE.sourceFirstProducerId })
  await createCluster(request, destination, { brokers: 1, firstProducerId: WORKED_EXAMPLE.destinationFirstProducerId })
  await createTopic(request, source, topic)
  const base = `/api/v1/clusters/${source}`
  const producers: string[] = []
  for (const id of transactionalIds) {
    producers.push((await okJson<{ producer: string }>(await request.post(`${base}/producers`, { headers: asOperator, data: { transactionalId: id } }), 201)).producer)
  }
  const apply = async (step: WorkedExampleStep) => {
    if (step.kind === 'send') {
      await okJson(await request.post(`${base}/producers/${producers[step.producer]}/send`, { headers: asOperator, data: { topic, partition: 0, records: step.records } }))
    } else if (step.kind === 'commit') {
      await okJson(await request.post(`${base}/producers/${producers[step.producer]}/commit`, { headers: asOperator }))
    } else {
      await okJson(await request.post(`${base}/topics/${topic}/records`, { headers: asOperator, data: { partition: 0, idempotent: false, records: step.records } }))
    }
  }
  for (const step of stepsBeforeMirroring) await apply(step)
  await okJson(await request.post('/api/v1/mirrors', { headers: asOperator, data: { name: mirror, sourceCluster: source, destinationCluster: destination, topics: [topic] } }), 201)
  await expect.poll(async () => (await mirrorStates(request, mirror)).map((p) => [p.state, p.destinationLogEndOffset]), SETTLE).toEqual([['MIRRORING', mirroredLogEndOffset]])
  await okJson(await request.post(`/api/v1/mirrors/${mirror}/topics/pause`, { headers: asOperator, data: {} }))
  await expect.poll(async () => (await mirrorStates(request, mirror))[0]?.state, SETTLE).toBe('PAUSED')
  for (const step of stepsAfterPause) await apply(step)
  return { source, destination, mirror, topic }
}

/** Fails the worked example over through the API (its lag gate forced) and waits until it is STOPPED. */
export async function failOver(request: APIRequestContext, mirror: string): Promise<string> {
  const accepted = await okJson<{ operation: string }>(
    await request.post(`/api/v1/mirrors/${mirror}/failover`, { headers: asOperator, data: { confirm: mirror, force: ['lag-threshold'] } }),
    202,
  )
  await expect
    .poll(async () => (await okJson<{ status: string }>(await request.get(`/api/v1/operations/${accepted.operation}`, { headers: asViewer }))).status, SETTLE)
    .toBe('succeeded')
  return accepted.operation
}

export interface RecordRow {
  offset: number
  type: string
  producerId: number | null
  key: string | null
  value: string | null
}

export async function recordsOf(request: APIRequestContext, cluster: string, topic = 'orders'): Promise<RecordRow[]> {
  return (
    await okJson<{ records: RecordRow[] }>(await request.get(`/api/v1/clusters/${cluster}/topics/${topic}/partitions/0/records?fromOffset=0&limit=1000`, { headers: asViewer }))
  ).records
}
