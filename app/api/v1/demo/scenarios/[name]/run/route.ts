import { demoEndpoints } from '@/lib/api/endpoints'
import { demoOf } from '@/server/api/demo-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const POST = route(demoEndpoints.runScenario, async ({ runtime, params }) => ({ run: await demoOf(runtime).runs.start(params.name) }))
