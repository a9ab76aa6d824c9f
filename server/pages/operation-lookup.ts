import 'server-only'
import type { Operation } from '@/lib/api/operations'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { toProblem } from '@/server/http/problem'
import { getRuntime } from '@/server/runtime'

/** The operation a page is about, in the API's shape, or null when there is none (the page renders its 404). */
export async function findOperation(id: string): Promise<Operation | null> {
  try {
    return mirrorApiOf(await getRuntime()).operation(id)
  } catch (error) {
    // By status, not class: the engine may come from another bundle of the same module (instrumentation).
    if (toProblem(error).status === 404) return null
    throw error
  }
}
