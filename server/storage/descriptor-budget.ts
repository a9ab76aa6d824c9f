import 'server-only'
import fs from 'node:fs'

/** Something that holds a file descriptor it can give back while idle and reopen on its next write. */
export interface DescriptorHolder {
  /** Closes the descriptor if nothing is using it (no write or fsync pending); true if it did. */
  releaseDescriptor(): boolean
}

/**
 * Bounds how many partition logs keep their active segment's descriptor open at once. Each log holds one
 * for writing, so a process with more partitions than open files allowed would fail with EMFILE (two
 * 10,000-partition clusters in one process need 20,000, a common hard limit). Past the limit the least
 * recently written idle logs close theirs; their next write reopens it (Kafka leaves this to the ulimit;
 * the embedded clusters share one process with the web server, so they keep within it).
 */
export class DescriptorBudget {
  /** In least-recently-used order: a Map keeps insertion order and re-inserting moves a key to the end. */
  private readonly holders = new Map<DescriptorHolder, true>()

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`descriptor limit must be a positive integer, got ${limit}`)
  }

  get open(): number {
    return this.holders.size
  }

  /** The holder has (re)opened its descriptor or written through it. */
  touch(holder: DescriptorHolder): void {
    this.holders.delete(holder)
    this.holders.set(holder, true)
    if (this.holders.size > this.limit) this.evict(holder)
  }

  /**
   * The holder finished its writes. Holders busy during a burst may take the count past the limit (they
   * cannot be released); the first to go idle bring it back down.
   */
  idle(): void {
    if (this.holders.size > this.limit) this.evict(null)
  }

  /** The holder closed its descriptor itself. */
  forget(holder: DescriptorHolder): void {
    this.holders.delete(holder)
  }

  /** Releases idle descriptors, oldest first, down to 90% of the limit so eviction is not paid per write. */
  private evict(keep: DescriptorHolder | null): void {
    const target = Math.floor(this.limit * 0.9)
    for (const holder of this.holders.keys()) {
      if (this.holders.size <= target) return
      if (holder === keep) continue
      if (holder.releaseDescriptor()) this.holders.delete(holder)
    }
  }
}

/** The soft limit on open files of this process (Linux), or undefined when it cannot be read. */
function openFilesLimit(): number | undefined {
  try {
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1]
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft)
  } catch {
    return undefined
  }
}

/**
 * Shared by every partition log of the process: 40% of the open-files limit for writers leaves room for
 * sockets, reads (which open segments briefly), index and checkpoint writes, and Node itself.
 */
export const processDescriptorBudget = new DescriptorBudget(Math.max(64, Math.floor((openFilesLimit() ?? 10_240) * 0.4)))
