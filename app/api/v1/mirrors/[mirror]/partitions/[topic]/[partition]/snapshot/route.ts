import { mirrorEndpoints } from '@/lib/api/endpoints'
import { partitionSnapshot } from '@/server/api/partition-snapshot'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(mirrorEndpoints.partitionSnapshot, ({ runtime, params }) => partitionSnapshot(runtime, params.mirror, params.topic, params.partition))
