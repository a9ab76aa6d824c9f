export interface RuntimeSummaryProps {
  version: string
  dataDir: string
  startedAt: number
  demo: boolean
}

export function RuntimeSummary({ version, dataDir, startedAt, demo }: RuntimeSummaryProps) {
  return (
    <section aria-labelledby="home-title" className="space-y-6">
      <div>
        <h1 id="home-title" className="text-2xl font-semibold tracking-tight">
          Mirrorboard
        </h1>
        <p className="mt-1 max-w-3xl text-slate-600">
          Kafka cluster mirroring as specified by KIP-1279: offset-preserving, per-partition replication between
          clusters, with a guided failover that aborts in-flight transactions.
        </p>
      </div>
      <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Fact term="Version" detail={version} />
        <Fact term="Mode" detail={demo ? 'Demo environment' : 'Standard'} />
        <Fact term="Server started" detail={<time dateTime={new Date(startedAt).toISOString()}>{new Date(startedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC</time>} />
        <Fact term="Data directory" detail={<span className="break-all font-mono text-sm">{dataDir}</span>} />
      </dl>
    </section>
  )
}

function Fact({ term, detail }: { term: string; detail: React.ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{term}</dt>
      <dd className="mt-1 text-slate-900">{detail}</dd>
    </div>
  )
}
