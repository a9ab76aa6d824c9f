import { demoEndpoints } from '@/lib/api/endpoints'
import { demoOf } from '@/server/api/demo-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const PATCH = route(demoEndpoints.updateWorkload, async ({ runtime, params, body }) => ({
  workload: await demoOf(runtime).workloads.setRate(params.name, body.ratePerSecond),
}))
