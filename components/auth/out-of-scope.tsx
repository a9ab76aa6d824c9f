import { AccessRefused } from './access-refused'

/**
 * A page about a mirror or cluster (or an operation, drill or verification of a mirror) opened by a person whose
 * scopes do not reach it: why, in the API's words and with its code (the API answers the same), and a way back.
 */
export function OutOfScope({ what, reason }: { what: string; reason: string }) {
  return (
    <AccessRefused title={`${what} is outside your scope`}>
      {`${reason.charAt(0).toUpperCase()}${reason.slice(1)}`}. Ask an administrator for a role that covers it.
      <span className="mt-2 block text-slate-600 dark:text-slate-400">
        The API answers <code className="font-mono text-xs whitespace-nowrap">403 FORBIDDEN</code>.
      </span>
    </AccessRefused>
  )
}
