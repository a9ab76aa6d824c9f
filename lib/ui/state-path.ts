/**
 * The states a partition went through, as one line of text: what the state graph's placeholder shows until the
 * drawing loads (components/state-graph/lazy-state-graph.tsx), so the reserved room already answers "how did it
 * get here". Oldest first, the newest `max` states kept (earlier ones as a leading "…"), a state repeated by a
 * retry storm written once with how often ("FAILED ⇄ MIRRORING × 11").
 *
 * Pure.
 */
export interface StatePath {
  readonly steps: readonly string[]
  /** States left out at the start. */
  readonly earlier: boolean
}

export function statePath(transitions: ReadonlyArray<{ readonly from: string; readonly to: string }>, current: string | null, max = 6): StatePath {
  const states: string[] = []
  for (const transition of transitions) {
    if (states.length === 0) states.push(transition.from)
    if (states.at(-1) !== transition.to) states.push(transition.to)
  }
  if (states.length === 0 && current !== null) states.push(current)
  const steps: string[] = []
  let index = 0
  while (index < states.length) {
    const a = states[index]!
    const b = states[index + 1]
    // A back-and-forth (a, b, a, b, …): one step with how many times it went round.
    let rounds = 0
    while (b !== undefined && states[index + 2 * rounds] === a && states[index + 2 * rounds + 1] === b) rounds++
    if (rounds >= 2) {
      steps.push(`${a} ⇄ ${b} × ${rounds}`)
      index += 2 * rounds
      continue
    }
    steps.push(a)
    index++
  }
  return steps.length <= max ? { steps, earlier: false } : { steps: steps.slice(-max), earlier: true }
}
