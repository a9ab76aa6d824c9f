import { systemEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  systemEndpoints.metrics,
  async ({ runtime }) =>
    new Response(await runtime.metrics.render(), {
      headers: { 'Content-Type': runtime.metrics.contentType, 'Cache-Control': 'no-store' },
    }),
  { role: (runtime) => (runtime.config.metricsPublic ? 'public' : 'viewer') },
)
