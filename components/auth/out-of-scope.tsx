import { AccessRefused } from './access-refused'

/** A mirror's or cluster's page opened by a person whose scopes do not reach it: why, and a way back (the API says 403 too). */
export function OutOfScope({ what, reason }: { what: string; reason: string }) {
  return (
    <AccessRefused title={`${what} is outside your scope`}>
      {`${reason.charAt(0).toUpperCase()}${reason.slice(1)}`}. Ask an administrator for a role that covers it.
    </AccessRefused>
  )
}
