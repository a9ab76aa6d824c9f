/**
 * What each instance tells the group's leader when it joins (the consumer protocol's member userData), and how a
 * mirror is named in the assignment: `<destinationCluster>/<mirror>` (neither name may hold a '/').
 */
export interface MemberInfo {
  instanceId: string
  version: string
  /** Mirror keys this instance runs now: the leader keeps them here if it can (sticky). */
  owned: string[]
  /**
   * A short-lived member an instance adds only to make the group rebalance (a mirror was created): it joins, is
   * given no mirror, and leaves.
   */
  rebalanceRequest?: true
}

export function encodeMemberInfo(info: MemberInfo): string {
  return JSON.stringify(info)
}

/** Null for anything that is not what `encodeMemberInfo` writes (another client in the group, an old version). */
export function decodeMemberInfo(text: string): MemberInfo | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const { instanceId, version, owned, rebalanceRequest } = value as Record<string, unknown>
  if (typeof instanceId !== 'string' || typeof version !== 'string' || !Array.isArray(owned)) return null
  return {
    instanceId,
    version,
    owned: owned.filter((key): key is string => typeof key === 'string' && parseMirrorKey(key) !== null),
    ...(rebalanceRequest === true ? { rebalanceRequest: true as const } : {}),
  }
}

export function mirrorKey(mirror: { name: string; destinationCluster: string }): string {
  return `${mirror.destinationCluster}/${mirror.name}`
}

export function parseMirrorKey(key: string): { name: string; destinationCluster: string } | null {
  const parts = key.split('/')
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null
  return { destinationCluster: parts[0], name: parts[1] }
}
