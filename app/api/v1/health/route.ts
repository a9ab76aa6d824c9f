import { HealthResponse } from '@/lib/api/health'
import { controlClusterStatus } from '@/server/api/instances-api'
import { getRuntime } from '@/server/runtime'

export const dynamic = 'force-dynamic'

export async function GET() {
  const runtime = await getRuntime()
  // Several instances: the control cluster's state (without its last error: this endpoint is public).
  const control = runtime.ha ? controlClusterStatus(runtime.ha) : null
  return Response.json(HealthResponse.parse({ status: 'ok', version: runtime.version, ...(control && { control: { reachable: control.reachable, since: control.since, viewAgeMs: control.viewAgeMs } }) }))
}
