import type { PageSession } from '@/components/data/session-context'
import { describeGrant, highestRole } from '@/lib/auth/grant-rules'

/**
 * The header's "who am I": a person's name (provider sign-ins) and their strongest role, whose title lists every
 * grant with its scope; a token's session shows its role alone, as it always has.
 */
export function SignedInAs({ session }: { session: PageSession }) {
  const person = session.method === 'oidc'
  const badge = person ? (highestRole(session.grants) ?? session.role) : session.role
  const scoped = person && session.grants.some((grant) => grant.clusters !== undefined || grant.mirrors !== undefined)
  const grants = session.grants.map(describeGrant).join('; ')
  const title = person ? `${session.email ?? session.name ?? ''}: ${grants}` : session.role === 'operator' ? 'Operator: can read and change' : 'Viewer: read only'
  return (
    <span className="flex min-w-0 items-center gap-1.5" title={title}>
      {person && (
        // At a phone's width the header has no room for a name beside the live dot, the bell and sign-out: the
        // badge's title and the screen reader's text still say it.
        <span className="hidden max-w-[14rem] truncate text-sm font-medium text-slate-800 sm:inline dark:text-slate-100" data-testid="signed-in-name">
          {session.name ?? session.email}
        </span>
      )}
      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-slate-700 dark:bg-slate-800 dark:text-slate-200">
        {badge}
        {scoped && <span className="hidden text-slate-600 sm:inline dark:text-slate-300"> · scoped</span>}
      </span>
      <span className="sr-only">{person ? `, ${session.name ?? session.email ?? ''}` : ''}, {grants}</span>
    </span>
  )
}
