import 'server-only'
import { Drill } from '@/lib/api/drills'
import { Verification } from '@/lib/api/verifications'
import { getDrill } from '@/server/api/drill-api'
import { getVerification } from '@/server/api/verification-api'
import { toProblem } from '@/server/http/problem'
import { forwardingKey } from '@/server/ha/forwarded-caller'
import { findRecordHolder } from '@/server/ha/record-finder'
import { getRuntime, type Runtime } from '@/server/runtime'

/** Null for a 404 (the page renders its not-found), by status: the runtime may come from another bundle. */
async function orNull<T>(read: () => T): Promise<T | null> {
  try {
    return read()
  } catch (error) {
    if (toProblem(error).status === 404) return null
    throw error
  }
}

/**
 * Several instances: a record this instance does not keep, as the instance that keeps it answers (asked as the
 * page's person, `caller`); null when none does (or none that answers).
 */
async function fromOtherInstances(runtime: Runtime, path: string, caller: unknown): Promise<unknown> {
  const ha = runtime.ha
  if (!ha || caller === undefined) return null
  const holder = await findRecordHolder({ self: ha.instanceId, key: forwardingKey(ha.config.secretKey), instances: () => ha.instances() }, path, caller)
  return holder.found ? holder.answer : null
}

/** The drill a page is about, in the API's shape, or null when there is none. */
export async function findDrill(id: string, caller?: unknown): Promise<Drill | null> {
  const runtime = await getRuntime()
  const here = await orNull(() => getDrill(runtime, id))
  if (here !== null) return here
  const parsed = Drill.safeParse(await fromOtherInstances(runtime, `/api/v1/drills/${encodeURIComponent(id)}`, caller))
  return parsed.success ? parsed.data : null
}

/** The verification a page is about, in the API's shape, or null when there is none. */
export async function findVerification(id: string, caller?: unknown): Promise<Verification | null> {
  const runtime = await getRuntime()
  const here = await orNull(() => getVerification(runtime, id))
  if (here !== null) return here
  const parsed = Verification.safeParse(await fromOtherInstances(runtime, `/api/v1/verifications/${encodeURIComponent(id)}`, caller))
  return parsed.success ? parsed.data : null
}
