import { demoEndpoints } from '@/lib/api/endpoints'
import { demoOf } from '@/server/api/demo-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(demoEndpoints.listScenarios, ({ runtime }) => ({ scenarios: demoOf(runtime).runs.catalog() }))
