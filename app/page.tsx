import { RuntimeSummary } from '@/components/health/runtime-summary'
import { getRuntime } from '@/server/runtime'

export const dynamic = 'force-dynamic'

export default async function HomePage() {
  const runtime = await getRuntime()
  return (
    <RuntimeSummary
      version={runtime.version}
      dataDir={runtime.config.dataDir}
      startedAt={runtime.startedAt}
      demo={runtime.config.demo}
    />
  )
}
