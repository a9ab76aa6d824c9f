import { systemEndpoints } from '@/lib/api/endpoints'
import { route } from '@/server/http/route'

export const dynamic = 'force-dynamic'

export const GET = route(
  systemEndpoints.metrics,
  async ({ runtime }) =>
    new Response(await runtime.metrics.render(), {
      headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' },
    }),
  { role: (runtime) => (runtime.config.metricsPublic ? 'public' : 'viewer') },
)
