import 'server-only'
import type { Operation } from '@/lib/api/operations'
import { mirrorApiOf } from '@/server/engine/api-adapter'
import { EngineError } from '@/server/engine/errors'
import { getRuntime } from '@/server/runtime'

/** The operation a page is about, in the API's shape, or null when there is none (the page renders its 404). */
export async function findOperation(id: string): Promise<Operation | null> {
  try {
    return mirrorApiOf(await getRuntime()).operation(id)
  } catch (error) {
    if (error instanceof EngineError && error.code === 'NOT_FOUND') return null
    throw error
  }
}
