import 'server-only'
import { FORWARDED_HEADER, signForwardedCaller } from './forwarded-caller'
import type { InstanceStatus } from './instance-directory'

/**
 * Which instance keeps a record looked up by id (a drill, a verification: kept in the data directory of the
 * instance that ran it), for "one API from any instance" (docs/high-availability.md): every other live instance is
 * asked `GET <path>` at once, as the caller vouched for (forwarded-caller.ts); the one that does not answer 404 has
 * it. An instance that does not answer within 5 s is named, since the record may be there.
 */
const ASK_TIMEOUT_MS = 5_000

export type RecordHolder =
  | { found: true; instance: string; url: string; answer: unknown }
  | { found: false; missing: Array<{ instance: string; url: string | null }> }

export async function findRecordHolder(
  deps: { self: string; key: Buffer; instances(): Array<InstanceStatus & { alive: boolean }> },
  path: string,
  principal: unknown,
): Promise<RecordHolder> {
  const others = deps.instances().filter((instance) => instance.alive && instance.id !== deps.self)
  const missing: Array<{ instance: string; url: string | null }> = []
  const holders = await Promise.all(
    others.map(async (instance) => {
      if (!instance.url) {
        missing.push({ instance: instance.id, url: null })
        return null
      }
      try {
        const answer = await fetch(`${instance.url}${path}`, {
          headers: { accept: 'application/json', [FORWARDED_HEADER]: signForwardedCaller(deps.key, { principal, from: deps.self, method: 'GET', path }) },
          signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
        })
        const body: unknown = await answer.json().catch(() => null)
        if (answer.status === 404) return null
        // 200, or 403 for a caller whose scope does not cover it: either way that instance keeps it.
        if (answer.status >= 500) throw new Error(`status ${answer.status}`)
        return { found: true as const, instance: instance.id, url: instance.url, answer: body }
      } catch {
        missing.push({ instance: instance.id, url: instance.url })
        return null
      }
    }),
  )
  return holders.find((holder) => holder !== null) ?? { found: false, missing: missing.sort((a, b) => (a.instance < b.instance ? -1 : 1)) }
}
