/**
 * The engine's raw names in a transition's reason (`sourceTopicDeleted`, `retryDue`, "truncated to 40 (0 records
 * removed, fromScratch)", "fetchFromSource failed") in an operator's words: one table for the mirror's incident
 * timeline and the partition's transitions. The table is typed against the state machine's events, effects and
 * truncation reasons, so a new one fails to compile until it has words. Free text around the names is kept, and a
 * name the table does not know is shown as it is rather than hidden.
 */
import type { MirrorEventType } from '../mirror/states'
import type { MirrorEffectKind } from '../mirror/transition'
import type { TruncationReason } from '../mirror/truncation'
import { formatInteger } from './format'

export const EVENT_WORDS: Readonly<Record<MirrorEventType | MirrorEffectKind | TruncationReason, string>> = {
  // Events (lib/mirror/states.ts): a transition's reason when nothing more precise was said.
  startRequested: 'start requested',
  lastMirrorPositionFound: 'last mirror position found',
  truncationCompleted: 'truncation completed',
  mirrorLoopDetected: 'mirror loop detected',
  batchEpochExceeded: 'batch epoch above the leader epoch',
  epochBumpThresholdReached: 'leader epoch bump needed',
  epochBumpCompleted: 'leader epoch raised',
  divergenceDetected: 'source diverged',
  replicasConverged: 'replicas converged',
  fetchSucceeded: 'fetch succeeded',
  pauseRequested: 'pause requested',
  fetcherRemoved: 'fetcher removed',
  resumeRequested: 'resume requested',
  stopRequested: 'failover requested',
  stoppingStepCompleted: 'failover step completed',
  stopCompleted: 'failover completed',
  failed: 'failed',
  retryDue: 'retry due',
  recoverRequested: 'recover requested',
  sourceTopicDeleted: 'source topic deleted',
  sourceClusterIdChanged: 'source cluster id changed',
  tieredStorageDetected: 'tiered storage detected',
  storedStateAdopted: 'stored state adopted',
  // Effects: "<effect> failed" when carrying one out failed.
  persistState: 'saving the state',
  setReadOnly: 'making the topic read-only',
  clearReadOnly: 'making the topic writable',
  startFetcher: 'starting the fetcher',
  removeFetcher: 'removing the fetcher',
  lookUpLastMirrorPosition: 'looking up the last mirror position',
  truncate: 'truncating',
  awaitReplicaConvergence: 'waiting for replicas to converge',
  bumpLeaderEpoch: 'raising the leader epoch',
  runStoppingSequence: 'the failover sequence',
  scheduleRetry: 'scheduling a retry',
  cancelScheduledRetry: 'cancelling the scheduled retry',
  // Truncation reasons: "truncated to 40 (0 records removed, fromScratch)".
  fromScratch: 'started from scratch',
  failback: 'failback',
  uncleanLeaderElection: 'unclean leader election',
}

/** The partition runner's truncation reason (server/engine/runner/partition-runner.ts). */
const TRUNCATION_SENTENCE = /^truncated to (\d+) \((\d+) records? removed, ([A-Za-z]+)\)$/

/**
 * "truncated to 0 (0 records removed, started from scratch)" told an operator a log was cut when nothing was: a
 * truncation that removed nothing says where mirroring starts; one that removed records says how many, first.
 */
function truncationWords(offset: number, removed: number, reason: string): string {
  const why = known(reason) ? EVENT_WORDS[reason] : reason
  const at = formatInteger(offset)
  if (removed === 0) return `${why}: nothing removed, mirroring from offset ${at}`
  return `${formatInteger(removed)} ${removed === 1 ? 'record' : 'records'} removed (${why}), log cut back to offset ${at}`
}

const known = (word: string): word is keyof typeof EVENT_WORDS => Object.hasOwn(EVENT_WORDS, word)

/**
 * The whole reason when it is one name ("failed", "retryDue"); otherwise every camelCase name the table knows
 * inside it (a plain word such as "truncate" in a sentence is English already and stays).
 */
export function eventWords(text: string): string {
  if (known(text)) return EVENT_WORDS[text]
  const truncation = TRUNCATION_SENTENCE.exec(text)
  if (truncation !== null) return truncationWords(Number(truncation[1]), Number(truncation[2]), truncation[3]!)
  return text.replace(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g, (word) => (known(word) ? EVENT_WORDS[word] : word))
}
