import 'server-only'
import { MirrorList } from '@/lib/api/mirrors'
import type { HaRuntime } from '@/server/ha/ha-runtime'

/**
 * GET /mirrors on any instance lists every mirror (docs/high-availability.md, "One API from any instance"): this
 * instance's own, and what each other live instance answers for the mirrors it runs (asked with the caller vouched
 * for, so each applies the caller's filters and scope). A request that another instance forwarded answers this
 * instance's own only. An instance that does not answer is named in `instancesMissing`; a mirror caught moving
 * between two instances is listed once.
 */
export async function withOtherInstances(ha: HaRuntime | null | undefined, request: Request, principal: unknown, own: MirrorList): Promise<MirrorList> {
  if (!ha || ha.forwarding.isForwarded(request)) return own
  const { answers, missing } = await ha.forwarding.collect(request, principal)
  const byName = new Map(own.mirrors.map((mirror) => [mirror.name, mirror]))
  for (const answer of answers) {
    const parsed = MirrorList.safeParse(answer)
    if (!parsed.success) continue
    for (const mirror of parsed.data.mirrors) if (!byName.has(mirror.name)) byName.set(mirror.name, mirror)
  }
  const mirrors = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { mirrors, ...(missing.length === 0 ? {} : { instancesMissing: missing }) }
}
