import 'server-only'
import type { Emulation, EmulationNote } from '@/lib/api/mirrors'
import type { PartitionEmulation } from './kafka-mirror-state'
import { STATE_TOPIC } from './kafka-state-topic'
import { OffsetTranslation } from './offset-translation'
import type { Authorizer, TopicWriteGuard } from './write-deny-acls'

export type EmulationNotes = Emulation

/**
 * The API's `emulation` notes (lib/api/mirrors.ts): what a Kafka destination does differently from a native
 * KIP-1279 mirror, for the topic (mirror-level notes) and, given a partition, what happened on it.
 */
export function emulationNotes(input: { partition?: PartitionEmulation; authorizer: Authorizer; guard?: TopicWriteGuard; readOnly?: boolean }): EmulationNotes {
  const notes: EmulationNote[] = []
  const add = (code: EmulationNote['code'], message: string) => notes.push({ code, message })
  const p = input.partition
  if (p === undefined) {
    add('PRODUCED_IN_SOURCE_ORDER', 'The destination is a Kafka cluster: records are produced in source order, one produce per source batch, keeping keys, values, headers and timestamps; producer ids and leader epochs on the broker are its own.')
    add('DESTINATION_TRANSACTIONS', 'Each open source transaction is reproduced by a destination transaction of its own (per source producer and partition), committed or aborted when the source marker is mirrored, aborted at failover.')
    add('STATE_TOPIC', `Mirror state is kept in the compacted topic ${STATE_TOPIC} on the destination cluster.`)
    if (input.authorizer === 'present') {
      add('READ_ONLY_ENFORCED', 'The cluster has an authorizer: writes by other clients are refused by ACL (DENY WRITE and DELETE for User:* on each mirror topic while it is read-only, removed at failover or stop). Super users bypass ACLs: their writes are detected (log end moved without our produce) and fail the partition.')
    } else {
      add('READ_ONLY_DETECTED', 'The cluster has no authorizer: writes by other clients cannot be refused; they are detected (log end moved without our produce) and fail the partition.')
    }
    add('TRUNCATION_BY_REBUILD', 'A client cannot truncate a Kafka log: failback rebuilds the topic (export the divergent tail, delete and recreate the topic, mirror back from offset 0).')
    return { notes }
  }
  const translation = new OffsetTranslation(p.translation)
  if (translation.identical) add('OFFSETS_IDENTICAL', 'Offsets on the destination broker are identical to the source.')
  else add('OFFSETS_TRANSLATED', `Offsets differ from the source's: a translation table of ${p.translation.length} segment(s) is kept in the mirror state, and group offset sync uses it.`)
  add('LEADER_EPOCH_RECORDED', `Leader epoch ${p.leaderEpoch} is recorded in the mirror state (a client cannot raise the broker's epoch).`)
  if (input.readOnly && input.guard) {
    if (input.guard.kind === 'acl') add('READ_ONLY_ENFORCED', 'Writes by other clients are refused by ACL (DENY WRITE and DELETE for User:* on this topic); a super user\'s write is detected.')
    else add('READ_ONLY_DETECTED', `Writes by other clients are detected, not refused: ${input.guard.reason}.`)
  }
  if (p.rebuild !== null) {
    const lost = p.rebuild.recordsRemoved === 0 ? 'nothing diverged here' : `${p.rebuild.recordsRemoved} record(s) from offset ${p.rebuild.truncateTo ?? 'the log start'} were removed`
    add('TRUNCATION_BY_REBUILD', `Rebuilt at ${new Date(p.rebuild.at).toISOString()} for mirror ${p.rebuild.mirror}: the topic was deleted and created again, then mirrored from the source's log start; ${lost}.`)
  }
  if (p.openTransactions.length > 0) {
    add('DESTINATION_TRANSACTIONS', `Open source transactions reproduced here: ${p.openTransactions.map((t) => `producer ${t.producerId} from offset ${t.firstOffset}`).join(', ')}.`)
  }
  if (p.pidResets.length > 0) add('MIRROR_PID_RESET_RECORDED', `MIRROR_PID_RESET at offset ${p.pidResets.join(', ')} is recorded in the mirror state: a client cannot write that control record.`)
  for (const skipped of p.skipped) add('RECORD_NOT_REPRODUCED', `Offset ${skipped.sourceOffset}: ${skipped.reason}.`)
  if (p.readOnlyViolation !== null) add('READ_ONLY_VIOLATED', p.readOnlyViolation)
  return { notes, ...(translation.identical ? {} : { offsetTranslation: translation.entries() }) }
}
