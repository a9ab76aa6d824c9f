import { HealthResponse } from '@/lib/api/health'
import { getRuntime } from '@/server/runtime'

export const dynamic = 'force-dynamic'

export async function GET() {
  const runtime = await getRuntime()
  return Response.json(HealthResponse.parse({ status: 'ok', version: runtime.version }))
}
