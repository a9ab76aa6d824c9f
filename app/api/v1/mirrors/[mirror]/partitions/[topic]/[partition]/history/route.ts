import { mirrorEndpoints } from '@/lib/api/endpoints'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.partitionHistory, ({ runtime, params }) => mirrorApiOf(runtime).history(params.mirror, params.topic, params.partition))
