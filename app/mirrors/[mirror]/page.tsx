import { HydrationBoundary } from '@tanstack/react-query'
import type { Metadata } from 'next'
import { headers } from 'next/headers'
import { notFound } from 'next/navigation'
import { earlyFetchScript } from '@/components/data/early-fetch'
import { dehydrateAnswers } from '@/components/data/prefetch'
import { MirrorPageView } from '@/components/mirror/mirror-page-view'
import { endpointUrl } from '@/lib/api/client'
import { mirrorEndpoints } from '@/lib/api/endpoints'
import { looksLikePhone } from '@/lib/ui/phone-guess'
import { mirrorApiOf } from '@/server/api/mirror-api'
import { NONCE_REQUEST_HEADER } from '@/server/http/security-headers'
import { firstPartitionRows } from '@/server/pages/mirror-first-rows'
import { OutOfScope } from '@/components/auth/out-of-scope'
import { requirePageSession, scopeRefusal } from '@/server/pages/session'
import { getRuntime } from '@/server/runtime'

type Params = Promise<{ mirror: string }>

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { mirror } = await params
  return { title: `Mirror ${decodeURIComponent(mirror)}` }
}

export default async function MirrorPage({ params }: { params: Params }) {
  const mirror = decodeURIComponent((await params).mirror)
  const session = await requirePageSession(`/mirrors/${encodeURIComponent(mirror)}`)
  const refusal = scopeRefusal(session, { mirror })
  if (refusal !== null) return <OutOfScope what={`Mirror ${mirror}`} reason={refusal} />
  const summary = await findMirror(mirror)
  if (summary === null) {
    // Several instances: another one runs it. The browser reads it through the API, which asks the owner.
    if ((await getRuntime()).ha?.forwarding.placeOf(mirror).here === false) return <MirrorPageView mirror={mirror} />
    notFound()
  }
  // Inline scripts run only with the request's nonce (server/http/security-headers.ts).
  const requestHeaders = await headers()
  const nonce = requestHeaders.get(NONCE_REQUEST_HEADER) ?? undefined
  // The table's cards or columns from the first render: switching after hydration rewrote every row in one long task.
  const phone = looksLikePhone(requestHeaders.get('user-agent'), requestHeaders.get('sec-ch-ua-mobile'))
  // The small summary and the table's first screen come with the page; the 10,000-row partition list is
  // fetched by the browser, and started by the HTML itself so it travels while the bundles load.
  const api = mirrorApiOf(await getRuntime())
  const firstRows = firstPartitionRows(api, summary)
  // The incident timeline comes with the page too: read by the browser after hydration, it arrived seconds late
  // under load and pushed the chart and the table down when it did.
  // (A mirror deleted since the summary was read: the browser asks and shows the API's answer.)
  const timeline = (() => {
    try {
      return [{ endpoint: mirrorEndpoints.mirrorTimeline, params: { mirror }, value: api.timeline(mirror) }]
    } catch {
      return []
    }
  })()
  return (
    <HydrationBoundary state={dehydrateAnswers([{ endpoint: mirrorEndpoints.getMirror, params: { mirror }, value: summary }, ...timeline])}>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: earlyFetchScript(endpointUrl(mirrorEndpoints.listMirrorPartitions, { mirror })) }} />
      <MirrorPageView mirror={mirror} firstRows={firstRows} phone={phone} />
    </HydrationBoundary>
  )
}

async function findMirror(name: string) {
  const runtime = await getRuntime()
  try {
    return mirrorApiOf(runtime).get(name)
  } catch (error) {
    // A name no mirror has, or one no mirror could have (the API's name rule): either way, not found. The
    // code is read off the error rather than by class: the runtime is built in another bundle than this
    // page, so its EngineError is another class object.
    const code = error instanceof Error && 'code' in error ? error.code : undefined
    if (code === 'NOT_FOUND' || code === 'VALIDATION_FAILED') return null
    throw error
  }
}
