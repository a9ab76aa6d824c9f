import 'server-only'
import type { Drill } from '@/lib/api/drills'
import type { Verification } from '@/lib/api/verifications'
import { getDrill } from '@/server/api/drill-api'
import { getVerification } from '@/server/api/verification-api'
import { toProblem } from '@/server/http/problem'
import { getRuntime } from '@/server/runtime'

/** Null for a 404 (the page renders its not-found), by status: the runtime may come from another bundle. */
async function orNull<T>(read: () => T): Promise<T | null> {
  try {
    return read()
  } catch (error) {
    if (toProblem(error).status === 404) return null
    throw error
  }
}

/** The drill a page is about, in the API's shape, or null when there is none. */
export async function findDrill(id: string): Promise<Drill | null> {
  const runtime = await getRuntime()
  return orNull(() => getDrill(runtime, id))
}

/** The verification a page is about, in the API's shape, or null when there is none. */
export async function findVerification(id: string): Promise<Verification | null> {
  const runtime = await getRuntime()
  return orNull(() => getVerification(runtime, id))
}
