import 'server-only'
import { z } from 'zod'
import { DurableJsonFile, readJsonIfExists } from './durable-json'
import { Mutex } from './mutex'

const ProducerIdBlockSchema = z.object({ version: z.literal(1), nextBlockStart: z.number().int().nonnegative() })

/**
 * Hands out producer ids, never the same one twice, across restarts too. Like Kafka's controller it reserves
 * a block durably before using any id of it; a restart abandons the rest of the block.
 */
export class ProducerIdManager {
  private readonly mutex = new Mutex()
  private nextId = 0
  private blockEnd = 0
  private nextBlockStart: number
  private readonly file: DurableJsonFile

  private constructor(
    path: string,
    nextBlockStart: number,
    private readonly blockSize: number,
  ) {
    this.nextBlockStart = nextBlockStart
    this.file = new DurableJsonFile(path, () => ({ version: 1, nextBlockStart: this.nextBlockStart }))
  }

  static async open(path: string, options: { firstProducerId: number; blockSize: number }): Promise<ProducerIdManager> {
    const raw = await readJsonIfExists(path)
    const nextBlockStart = raw === undefined ? options.firstProducerId : ProducerIdBlockSchema.parse(raw).nextBlockStart
    return new ProducerIdManager(path, nextBlockStart, options.blockSize)
  }

  allocate(): Promise<number> {
    return this.mutex.run(async () => {
      if (this.nextId >= this.blockEnd) {
        const start = this.nextBlockStart
        this.nextBlockStart = start + this.blockSize
        await this.file.save()
        this.nextId = start
        this.blockEnd = start + this.blockSize
      }
      return this.nextId++
    })
  }
}
