import 'server-only'
import type { Emulation, EmulationNote } from '@/lib/api/mirrors'
import type { PartitionEmulation } from './kafka-mirror-state'
import { STATE_TOPIC } from './kafka-state-topic'
import { OffsetTranslation } from './offset-translation'

export type EmulationNotes = Emulation

/**
 * The API's `emulation` notes (lib/api/mirrors.ts): what a Kafka destination does differently from a native
 * KIP-1279 mirror, for the topic (mirror-level notes) and, given a partition, what happened on it.
 */
export function emulationNotes(input: { partition?: PartitionEmulation; authorizer: 'absent' | 'present' | 'unknown' }): EmulationNotes {
  const notes: EmulationNote[] = []
  const add = (code: EmulationNote['code'], message: string) => notes.push({ code, message })
  const p = input.partition
  if (p === undefined) {
    add('PRODUCED_IN_SOURCE_ORDER', 'The destination is a Kafka cluster: records are produced in source order, one produce per source batch, keeping keys, values, headers and timestamps; producer ids and leader epochs on the broker are its own.')
    add('DESTINATION_TRANSACTIONS', 'Each open source transaction is reproduced by a destination transaction of its own (per source producer and partition), committed or aborted when the source marker is mirrored, aborted at failover.')
    add('STATE_TOPIC', `Mirror state is kept in the compacted topic ${STATE_TOPIC} on the destination cluster.`)
    add(
      'READ_ONLY_DETECTED',
      input.authorizer === 'present'
        ? 'The cluster has an authorizer, but DENY WRITE ACLs are not applied by this version: writes by other clients are detected (log end moved without our produce) and fail the partition.'
        : 'The cluster has no authorizer: writes by other clients cannot be refused; they are detected (log end moved without our produce) and fail the partition.',
    )
    add('TRUNCATION_BY_REBUILD', 'A client cannot truncate a Kafka log: failback rebuilds the topic (export the divergent tail, delete and recreate the topic, mirror back from offset 0).')
    return { notes }
  }
  const translation = new OffsetTranslation(p.translation)
  if (translation.identical) add('OFFSETS_IDENTICAL', 'Offsets on the destination broker are identical to the source.')
  else add('OFFSETS_TRANSLATED', `Offsets differ from the source's: a translation table of ${p.translation.length} segment(s) is kept in the mirror state, and group offset sync uses it.`)
  add('LEADER_EPOCH_RECORDED', `Leader epoch ${p.leaderEpoch} is recorded in the mirror state (a client cannot raise the broker's epoch).`)
  if (p.openTransactions.length > 0) {
    add('DESTINATION_TRANSACTIONS', `Open source transactions reproduced here: ${p.openTransactions.map((t) => `producer ${t.producerId} from offset ${t.firstOffset}`).join(', ')}.`)
  }
  if (p.pidResets.length > 0) add('MIRROR_PID_RESET_RECORDED', `MIRROR_PID_RESET at offset ${p.pidResets.join(', ')} is recorded in the mirror state: a client cannot write that control record.`)
  for (const skipped of p.skipped) add('RECORD_NOT_REPRODUCED', `Offset ${skipped.sourceOffset}: ${skipped.reason}.`)
  if (p.readOnlyViolation !== null) add('READ_ONLY_VIOLATED', p.readOnlyViolation)
  return { notes, ...(translation.identical ? {} : { offsetTranslation: translation.entries() }) }
}
