import 'server-only'
import { TopicPartitionMap } from '@/lib/mirror/topic-partition'
import type { AttentionResponse } from '@/lib/api/attention'
import { DEFAULT_ATTENTION_THRESHOLDS, findAttention, summarizeAttention, type AttentionItem, type AttentionLagPoint } from '@/lib/overview/attention'
import { rpoBreaches } from '@/lib/overview/rpo-breaches'
import type { MirrorEngine } from '@/server/engine/engine'
import { mirrorRpoStatus } from './mirror-rpo-status'

/**
 * GET /attention over the engine. Only lagging MIRRORING partitions need their lag history, and only the
 * last few minutes of it at 5 s steps, so a caught-up 10,000-partition mirror costs one pass over its
 * (cached) snapshots. Overviews refetch this on live events; answers are reused for a second.
 */

const LOOK_BACK_MS = 5 * 60_000
const STEP_MS = 5_000
const REUSE_FOR_MS = 1_000

const lastAnswers = new WeakMap<MirrorEngine, { at: number; key: string; answer: AttentionResponse }>()

export function attentionOf(engine: MirrorEngine, query: { limit: number; staleAfterMs: number }, now = Date.now()): AttentionResponse {
  const key = `${query.limit}:${query.staleAfterMs}`
  const last = lastAnswers.get(engine)
  if (last !== undefined && last.key === key && now - last.at >= 0 && now - last.at < REUSE_FOR_MS) return last.answer
  const thresholds = { ...DEFAULT_ATTENTION_THRESHOLDS, staleAfterMs: query.staleAfterMs }
  const items: AttentionItem[] = []
  for (const definition of engine.listMirrors()) {
    const partitions = engine.partitions(definition.name)
    const laggingTopics = new Set(partitions.filter((partition) => partition.state === 'MIRRORING' && (partition.offsetLag ?? 0) > 0).map((partition) => partition.topic))
    const history = new TopicPartitionMap<readonly AttentionLagPoint[]>()
    for (const topic of laggingTopics) {
      for (const series of engine.lagSeries(definition.name, { topic, from: now - LOOK_BACK_MS, stepMs: STEP_MS })) {
        history.set(series, series.points)
      }
    }
    items.push(...findAttention(definition.name, partitions, (topic, partition) => history.get({ topic, partition }) ?? [], now, thresholds))
  }
  const { items: worst, totals, groups } = summarizeAttention(items, query.limit)
  const breaches = rpoBreaches(engine.listMirrors().map((definition) => ({ name: definition.name, objectives: mirrorRpoStatus(engine, definition.name) })))
  const answer: AttentionResponse = { items: worst, totals, groups: groups.map((group) => ({ ...group, examples: [...group.examples] })), rpoBreaches: breaches, staleAfterMs: query.staleAfterMs, at: now }
  lastAnswers.set(engine, { at: now, key, answer })
  return answer
}
