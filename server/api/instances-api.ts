import 'server-only'
import type { ControlClusterStatus, InstanceList } from '@/lib/api/instances'
import type { Grant } from '@/lib/auth/grants'
import { seesEverything, seesMirror } from '@/lib/auth/visibility'
import type { MirrorEngine } from '@/server/engine/engine'
import type { HaRuntime } from '@/server/ha/ha-runtime'

/**
 * `GET /api/v1/instances`: the group's instances as the control cluster's instances topic shows them
 * (server/ha/instance-directory.ts), or this instance alone when it shares nothing (MIRRORBOARD_CONTROL_BOOTSTRAP unset).
 */
export function instancesOf(deps: { version: string; engine: MirrorEngine; ha: HaRuntime | null | undefined }, grants: readonly Grant[]): InstanceList {
  const list = allInstances(deps)
  // A caller scoped to some mirrors sees which instance runs those only (lib/auth/visibility.ts), as in GET /mirrors.
  if (seesEverything(grants)) return list
  return { ...list, instances: list.instances.map((instance) => ({ ...instance, mirrors: instance.mirrors.filter((mirror) => seesMirror(grants, mirror)), ...(instance.fenced ? { fenced: instance.fenced.filter((fenced) => seesMirror(grants, fenced.mirror)) } : {}) })) }
}

function allInstances(deps: { version: string; engine: MirrorEngine; ha: HaRuntime | null | undefined }): InstanceList {
  const { ha, engine } = deps
  if (!ha) {
    return { highAvailability: false, instances: [{ id: 'this', alive: true, version: deps.version, mirrors: engine.heldMirrors().sort(), lastHeartbeatAt: null, self: true }] }
  }
  const leader = ha.leaderInstance()
  const listed: InstanceList['instances'] = ha.instances().map((status) => ({
    id: status.id,
    alive: status.alive,
    version: status.version,
    mirrors: status.mirrors,
    lastHeartbeatAt: status.heartbeatAt,
    self: status.id === ha.instanceId,
    url: status.url ?? null,
    leader: status.alive && status.id === leader,
    fenced: status.fenced ?? [],
  }))
  // Before its first status is read back, this instance still answers for itself.
  if (!listed.some((instance) => instance.self)) {
    listed.push({ id: ha.instanceId, alive: true, version: deps.version, mirrors: engine.heldMirrors().sort(), lastHeartbeatAt: null, self: true, url: ha.config.advertisedUrl ?? null, leader: ha.instanceId === leader, fenced: ha.fencedWork() })
  }
  return { highAvailability: true, instances: listed, control: controlClusterStatus(ha) }
}

/** The control cluster as this instance sees it (server/ha/control-health.ts), and how old its view of each control topic is. */
export function controlClusterStatus(ha: HaRuntime, now = Date.now()): ControlClusterStatus {
  const report = ha.control.report()
  const topics = report.views.map(({ topic, readAt }) => ({ topic, readAt, ageMs: readAt === null ? null : Math.max(0, now - readAt) }))
  const ages = topics.map((view) => view.ageMs)
  return {
    bootstrap: ha.config.bootstrap,
    group: ha.config.group,
    reachable: report.available,
    since: report.changedAt,
    lastAnsweredAt: report.lastAnsweredAt,
    lastError: report.lastError,
    lastOutage: report.lastOutage,
    viewAgeMs: ages.length === 0 || ages.includes(null) ? null : Math.max(...(ages as number[])),
    topics,
  }
}
