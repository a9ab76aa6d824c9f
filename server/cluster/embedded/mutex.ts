import 'server-only'

/**
 * A FIFO async lock. The embedded cluster takes one per partition around every change of a partition's
 * replicas (append, replication, truncation, election), so that an election never interleaves with an append
 * and a follower never copies from a leader that is half-way through a truncation.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve()
  private held = false

  get isLocked(): boolean {
    return this.held
  }

  async run<T>(task: () => Promise<T> | T): Promise<T> {
    const previous = this.tail
    let release!: () => void
    this.tail = new Promise<void>((resolve) => {
      release = resolve
    })
    await previous
    this.held = true
    try {
      return await task()
    } finally {
      this.held = false
      release()
    }
  }
}
