import 'server-only'
import { AttentionResponse } from '@/lib/api/attention'
import { mergeAttention } from '@/lib/overview/attention-merge'
import type { HaRuntime } from '@/server/ha/ha-runtime'

/**
 * GET /attention on any instance covers every mirror (docs/high-availability.md, "One API from any instance"): this
 * instance's findings and what each other live instance answers for the mirrors it runs (asked with the caller
 * vouched for, so each applies the caller's scope), merged (lib/overview/attention-merge.ts). A request another
 * instance forwarded answers this instance's own only; an instance that does not answer is named in
 * `instancesMissing`.
 */
export async function attentionEverywhere(ha: HaRuntime | null | undefined, request: Request, principal: unknown, own: AttentionResponse, limit: number): Promise<AttentionResponse> {
  if (!ha || ha.forwarding.isForwarded(request)) return own
  const { answers, missing } = await ha.forwarding.collect(request, principal)
  const others = answers.flatMap((answer) => {
    const parsed = AttentionResponse.safeParse(answer)
    return parsed.success ? [parsed.data] : []
  })
  const merged = mergeAttention(own, others, limit)
  return missing.length === 0 ? merged : { ...merged, instancesMissing: missing }
}
