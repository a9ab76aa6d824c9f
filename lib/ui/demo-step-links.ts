import type { RunStep, StepTarget } from '../api/demo'

/**
 * Where a scenario step can be seen: the pages its target names, most specific first. A step that names a
 * partition of a mirror opens its partition page (the logs side by side); one that names an operation opens
 * the operation's progress and report; a step about a cluster alone (before any mirror exists) opens the
 * cluster's page. Routes are UI.md §1.
 */
export interface StepLink {
  readonly href: string
  readonly label: string
}

const segment = encodeURIComponent

export function stepLinks(target: StepTarget | null): StepLink[] {
  if (target === null) return []
  const links: StepLink[] = []
  const { cluster, mirror, topic, partition, operation, drill, verification } = target
  if (mirror !== null && topic !== null && partition !== null) {
    // With a verification, the tapes open with its mismatches marked.
    const query = verification === undefined ? '' : `?verification=${segment(verification)}`
    links.push({ href: `/mirrors/${segment(mirror)}/partitions/${segment(topic)}/${partition}${query}`, label: `Partition ${topic}-${partition} of ${mirror}` })
  }
  if (drill !== undefined) links.push({ href: `/drills/${segment(drill)}`, label: 'Drill' })
  if (verification !== undefined) links.push({ href: `/verifications/${segment(verification)}`, label: 'Verification' })
  if (operation !== null) links.push({ href: `/operations/${segment(operation)}`, label: 'Failover operation' })
  if (mirror !== null) links.push({ href: `/mirrors/${segment(mirror)}`, label: `Mirror ${mirror}` })
  else if (cluster !== null) links.push({ href: `/clusters/${segment(cluster)}`, label: topic === null ? `Cluster ${cluster}` : `Cluster ${cluster} (topic ${topic})` })
  return links
}

/** The step a reader should look at now: the running one, else the last that finished, else the first. */
export function currentStepIndex(steps: readonly Pick<RunStep, 'status'>[]): number {
  const running = steps.findIndex((step) => step.status === 'running')
  if (running !== -1) return running
  let last = -1
  steps.forEach((step, index) => {
    if (step.status === 'succeeded' || step.status === 'failed') last = index
  })
  return Math.max(last, 0)
}
