/**
 * Forcing past failover gates (UI.md §2, step 2): which failing gates stop a failover, given the gates
 * the operator explicitly forced. Used by the engine when it accepts a failover and by the wizard when it
 * decides whether the operator may go on, so both read the gates the same way.
 *
 * Cases, per gate:
 * - passed: nothing to decide.
 * - failed, severity `warning`: stops the failover unless it is named in `forced`. A caller that names no
 *   `forced` list at all keeps the API's older reading (warnings inform only), so scripts that predate
 *   forcing still run; the wizard always sends a list, so a gate that started failing after the operator
 *   looked refuses the failover instead of slipping through.
 * - failed, severity `blocking`: always stops it; forcing cannot help (nothing to stop, or a partition
 *   without a state a stop can start from) — the operator changes the topic selection instead.
 */
export interface GateLike {
  readonly name: string
  readonly ok: boolean
  readonly severity?: 'blocking' | 'warning'
}

export interface GateDecision<G extends GateLike> {
  /** Failing blocking gates: no forcing helps. */
  readonly blocking: readonly G[]
  /** Failing warning gates the operator has not forced. */
  readonly unforced: readonly G[]
  /** Failing warning gates the operator forced (what the audit entry and the report name). */
  readonly forced: readonly G[]
  readonly canProceed: boolean
}

export function isForceable(gate: GateLike): boolean {
  return !gate.ok && gate.severity !== 'blocking'
}

export function decideGates<G extends GateLike>(gates: readonly G[], forced: readonly string[] | undefined): GateDecision<G> {
  const failing = gates.filter((gate) => !gate.ok)
  const blocking = failing.filter((gate) => gate.severity === 'blocking')
  const warnings = failing.filter(isForceable)
  const named = forced === undefined ? null : new Set(forced)
  const unforced = named === null ? [] : warnings.filter((gate) => !named.has(gate.name))
  const forcedGates = named === null ? [] : warnings.filter((gate) => named.has(gate.name))
  return { blocking, unforced, forced: forcedGates, canProceed: blocking.length === 0 && unforced.length === 0 }
}

/** What an operator can do about a failing gate, in plain words, by gate name. */
export const GATE_ADVICE: Readonly<Record<string, string>> = {
  'partitions-selected': 'Go back to Topics and choose topics that still have partitions to stop.',
  'partitions-stoppable': 'Wait until these partitions have a mirror state (they are UNKNOWN), or leave their topics out.',
  'source-reachable':
    'If the source is really down, force past this gate: the destination keeps what it mirrored. If it is a network blip, wait and check again.',
  'lag-threshold':
    'Records at risk are lost for destination readers. Wait for the mirror to catch up (or stop the producers first), or force past this gate to accept the loss.',
  'partitions-failed': 'FAILED partitions are stopped with what they mirrored before failing. Recover them first, or force past this gate.',
  'rpo-objective':
    "A failover now loses more than the mirror's recovery-point objective (or an amount nobody can check). Wait for the mirror to catch up, choose a planned switchover, or type the loss you accept.",
  'write-fence':
    'The source cannot refuse writes (no authorizer). Stop the producers first; the switchover then waits until the source stands still before it stops. Force past this gate once they are stopped.',
}

/** A human title for a gate name (`lag-threshold` → "Lag threshold"). */
export function gateTitle(name: string): string {
  if (name === 'rpo-objective') return 'RPO objective'
  const words = name.replace(/-/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}
