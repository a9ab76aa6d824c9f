import Link from 'next/link'
import { buttonClass } from '@/components/ui/button-class'
import { Panel } from '@/components/ui/panel'

const API_EXAMPLE = `T=$(node -p "require('./data/tokens.json').operator")
H=(-H "Authorization: Bearer $T" -H 'content-type: application/json')
API=http://127.0.0.1:3000/api/v1

curl -s "\${H[@]}" -d '{"name":"us-east","kind":"embedded"}' $API/clusters
curl -s "\${H[@]}" -d '{"name":"eu-west","kind":"embedded"}' $API/clusters
curl -s "\${H[@]}" -d '{"name":"orders","partitions":3}' $API/clusters/us-east/topics
curl -s "\${H[@]}" -d '{"name":"dr","sourceCluster":"us-east","destinationCluster":"eu-west","topics":["orders"]}' $API/mirrors`

/** No cluster yet: what the overview will show, and the two ways to get there. */
export function EmptyOverview({ canOperate }: { canOperate: boolean }) {
  return (
    <Panel id="empty-overview" title="No clusters yet">
      <div className="max-w-3xl space-y-4 text-sm text-slate-700 dark:text-slate-300">
        <p>
          The overview draws every cluster Mirrorboard manages and the mirrors between them, counts partitions by state and lists what needs attention. Add two clusters
          and a mirror to see it.
        </p>
        {!canOperate && <p className="font-medium">You are signed in as a viewer: adding clusters needs the operator token.</p>}
        {canOperate && (
          <p>
            <Link prefetch={false} href="/clusters#add-cluster" className={buttonClass('primary')}>
              Add a cluster
            </Link>
          </p>
        )}
        <div>
          <h3 className="font-semibold text-slate-900 dark:text-white">Try the demo</h3>
          <p className="mt-1">
            <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800">npm run demo</code> starts the app with two embedded clusters, a mirror between
            them, live producers and fault injection.
          </p>
        </div>
        <div className="min-w-0">
          <h3 className="font-semibold text-slate-900 dark:text-white">Or use the API</h3>
          <p className="mt-1">Two embedded clusters, a topic on the source and a mirror to the destination, with the operator token:</p>
          <pre className="mt-2 max-w-full overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 dark:bg-black/60" tabIndex={0} aria-label="API example">
            {API_EXAMPLE}
          </pre>
          <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
            The whole API is described at <code className="font-mono">/api/v1/openapi.json</code>.
          </p>
        </div>
      </div>
    </Panel>
  )
}
