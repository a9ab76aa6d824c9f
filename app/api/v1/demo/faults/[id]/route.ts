import { demoEndpoints } from '@/lib/api/endpoints'
import { demoOf } from '@/server/api/demo-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const DELETE = route(demoEndpoints.healFault, async ({ runtime, params }) => ({ fault: await demoOf(runtime).faults.heal(params.id) }))
