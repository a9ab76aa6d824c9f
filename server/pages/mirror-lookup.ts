import 'server-only'
import type { Mirror } from '@/lib/api/mirrors'
import { NAME_PATTERN } from '@/lib/api/common'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { toProblem } from '@/server/http/problem'
import { getRuntime } from '@/server/runtime'

/** The mirror a page is about, or null when no such mirror exists (the page renders its 404). */
export async function findMirror(name: string): Promise<Mirror | null> {
  if (!NAME_PATTERN.test(name)) return null
  try {
    return mirrorApiOf(await getRuntime()).get(name)
  } catch (error) {
    // By status, not class: the engine may come from another bundle of the same module (instrumentation).
    if (toProblem(error).status === 404) return null
    throw error
  }
}
