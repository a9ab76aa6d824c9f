import 'server-only'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { Alert, Delivery, ReceiverFormat, Silence } from '@/lib/api/alerts'
import { readTextIfExists, writeFileAtomic } from '@/server/util/durable-file'

/**
 * `<dataDir>/alerts/alerts.json` (mode 0600: receiver URLs hold secrets): the receivers with their full URLs,
 * the silences, the firing alerts (so a restart neither forgets nor repeats them) and the resolved ones kept
 * for the page. Rewritten whole and atomically on every change; changes are rare (an alert firing or
 * resolving, an operator's edit, a delivery's result).
 */

export const StoredReceiver = z.object({
  name: z.string(),
  url: z.string(),
  format: ReceiverFormat,
  createdAt: z.number(),
  lastDelivery: Delivery.nullable(),
})
export type StoredReceiver = z.infer<typeof StoredReceiver>

const StoredAlert = Alert.omit({ silenced: true }).extend({ notified: z.boolean() })
export type StoredAlert = z.infer<typeof StoredAlert>

const AlertsFile = z.object({
  version: z.literal(1),
  receivers: z.array(StoredReceiver),
  silences: z.array(Silence),
  /** Firing alerts and, newest first, the resolved ones kept. */
  alerts: z.array(StoredAlert),
})
export type AlertsFile = z.infer<typeof AlertsFile>

export const EMPTY_ALERTS_FILE: AlertsFile = { version: 1, receivers: [], silences: [], alerts: [] }

export class AlertStore {
  private writing: Promise<void> = Promise.resolve()

  private constructor(private readonly file: string) {}

  static async open(dataDir: string, onDamaged: (error: unknown) => void): Promise<{ store: AlertStore; content: AlertsFile }> {
    const dir = path.join(dataDir, 'alerts')
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const file = path.join(dir, 'alerts.json')
    const text = await readTextIfExists(file)
    let content = EMPTY_ALERTS_FILE
    if (text !== undefined) {
      const parsed = AlertsFile.safeParse(safeJson(text))
      if (parsed.success) content = parsed.data
      else onDamaged(parsed.error)
    }
    return { store: new AlertStore(file), content }
  }

  /** Writes are queued: the file always ends with the last content given. */
  save(content: AlertsFile): Promise<void> {
    const text = `${JSON.stringify(content)}\n`
    this.writing = this.writing.catch(() => undefined).then(() => writeFileAtomic(this.file, text))
    return this.writing
  }

  settled(): Promise<void> {
    return this.writing.catch(() => undefined)
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    return error
  }
}
