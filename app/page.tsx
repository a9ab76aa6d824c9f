import { SplitBrainNotice } from '@/components/failover/split-brain-notice'
import { RuntimeSummary } from '@/components/health/runtime-summary'
import { requirePageSession } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

export default async function HomePage() {
  await requirePageSession('/')
  const runtime = await getRuntime()
  return (
    <div className="space-y-4">
      <SplitBrainNotice />
      <RuntimeSummary version={runtime.version} dataDir={runtime.config.dataDir} startedAt={runtime.startedAt} demo={runtime.config.demo} />
    </div>
  )
}
