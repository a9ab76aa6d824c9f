import 'server-only'
import { encodeKey } from '@/lib/mirror/mirror-state-records'
import type { MirrorStateAppendEntry, TopicPartition } from '@/server/cluster/ports'
import { partitionStateWrite } from './state-fencing'
import type { EngineMirror } from './engine-mirror'

/**
 * The `__mirror_state` records a copy of a mirror's destination holds (a drill's sandbox, server/drills/): the
 * mirror's definition, naming only the copied topics, and each copied partition's state record as this engine
 * persisted it, unfenced (the copy starts its own history). Replayed by an engine over the copy, they make it
 * the mirror as it stands here.
 */
export function stateRecordsForCopy(mirror: EngineMirror, partitions: readonly TopicPartition[], topics: readonly string[]): MirrorStateAppendEntry[] {
  const definition = { ...mirror.definition, topics: [...topics] }
  const entries: MirrorStateAppendEntry[] = [{ key: encodeKey({ kind: 'mirror', mirror: definition.name }), value: JSON.stringify(definition) }]
  for (const tp of partitions) {
    const runtime = mirror.partitions.get(tp)
    if (runtime === undefined) continue
    const write = partitionStateWrite(definition, runtime, runtime.value, runtime.failureCode)
    entries.push({ key: encodeKey(write.key), value: JSON.stringify(write.value) })
  }
  return entries
}
