import { demoEndpoints } from '@/lib/api/endpoints'
import { demoOf } from '@/server/api/demo-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(demoEndpoints.listFaults, ({ runtime }) => ({ faults: demoOf(runtime).faults.active() }))

export const POST = route(demoEndpoints.injectFault, async ({ runtime, body }) => ({ fault: await demoOf(runtime).faults.apply(body) }))
