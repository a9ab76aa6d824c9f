import 'server-only'
import type { z } from 'zod'
import { Mirror, MirrorPartitionList } from '@/lib/api/mirrors'
import { NAME_PATTERN } from '@/lib/api/common'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { toProblem } from '@/server/http/problem'
import { getRuntime } from '@/server/runtime'

/**
 * The mirror a page is about, or null when no such mirror exists (the page renders its 404). Several instances: a
 * mirror another instance runs is read from it, as the page's person (`caller`, the session's principal).
 */
export async function findMirror(name: string, caller?: unknown): Promise<Mirror | null> {
  if (!NAME_PATTERN.test(name)) return null
  const runtime = await getRuntime()
  try {
    return mirrorApiOf(runtime).get(name)
  } catch (error) {
    // By status, not class: the engine may come from another bundle of the same module (instrumentation).
    if (toProblem(error).status !== 404) throw error
  }
  const place = runtime.ha?.forwarding.placeOf(name)
  if (caller === undefined || place === undefined || place.here) return null
  const answer = await runtime.ha!.forwarding.readFromOwner(name, place, `/api/v1/mirrors/${encodeURIComponent(name)}`, caller)
  return answer === null ? null : Mirror.parse(answer)
}

/**
 * The partition page of a mirror another instance runs: the mirror and the topic's partitions as its owner answers
 * them (`partitionList` is the API's answer, for the page's first data); null when no instance runs it (or the
 * owner knows no such mirror).
 */
export async function ownersPartitions(name: string, topic: string, caller: unknown): Promise<{ mirror: Mirror; partitions: z.infer<typeof MirrorPartitionList>['partitions']; partitionList: z.infer<typeof MirrorPartitionList> } | null> {
  const runtime = await getRuntime()
  const place = runtime.ha?.forwarding.placeOf(name)
  if (place === undefined || place.here) return null
  const path = `/api/v1/mirrors/${encodeURIComponent(name)}`
  const [mirror, list] = await Promise.all([
    runtime.ha!.forwarding.readFromOwner(name, place, path, caller),
    runtime.ha!.forwarding.readFromOwner(name, place, `${path}/partitions?topic=${encodeURIComponent(topic)}`, caller),
  ])
  if (mirror === null || list === null) return null
  const partitionList = MirrorPartitionList.parse(list)
  return { mirror: Mirror.parse(mirror), partitions: partitionList.partitions, partitionList }
}
