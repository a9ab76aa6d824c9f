/**
 * The one name rule for clusters, mirrors and topics (Kafka's topic rule): 1 to 249 characters of
 * A-Z, a-z, 0-9, ".", "_" or "-", and not "." or ".." (a path segment that means something else).
 */
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,249}$/

export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME_PATTERN.test(name) && name !== '.' && name !== '..'
}
