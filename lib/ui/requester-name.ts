/**
 * Who asked for an operation, for people reading: the person's name and address when they signed in through
 * the identity provider, the token's name for a named API token or a shared token, and for a browser signed in
 * with a shared token the token it signed in with — never the session's id, which tells an incident review
 * nothing.
 */
export interface Requester {
  readonly actor: string
  readonly actorName?: string | undefined
  readonly role: 'viewer' | 'operator' | null
}

export function requesterName(requester: Requester | null | undefined): string {
  if (requester == null) return 'an unrecorded caller'
  if (requester.actorName !== undefined && requester.actorName.trim() !== '') return requester.actorName
  const [kind, ...rest] = requester.actor.split(':')
  const name = rest.join(':')
  if (kind === 'user' && name !== '') return name
  if (kind === 'token' && name !== '') return `the ${name} token`
  if (kind === 'session') return requester.role === null ? 'someone signed in with a shared token' : `someone signed in with the ${requester.role} token`
  return requester.actor
}
