import 'server-only'

// The helper lives in server/util/durable-file.ts; this path stays only for server/cluster/registry.ts, whose
// branch (cluster-split) switches its import when it merges.
export { readTextIfExists, SnapshotWriter, syncDirectory, writeFileAtomic } from '@/server/util/durable-file'
