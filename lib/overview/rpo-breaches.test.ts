import { expect, it } from 'vitest'
import { rpoBreaches } from './rpo-breaches'

const objectives = (status: 'met' | 'breached' | 'unknown', records: number | null, seconds: number | null) => ({ status, rpoRecords: 10, rpoSeconds: 30, records, seconds, known: status !== 'unknown' })

it('lists the mirrors over their RPO objective now, most at risk first; met, unknown and no objective are not breaches', () => {
  const mirrors = [
    { name: 'met', objectives: objectives('met', 0, 0) },
    { name: 'unknown', objectives: objectives('unknown', 5, 12) },
    { name: 'none', objectives: null },
    { name: 'failed-over' },
    { name: 'slow', objectives: objectives('breached', 3, 45) },
    { name: 'far', objectives: objectives('breached', 500, 20) },
    { name: 'also-slow', objectives: objectives('breached', 3, 45) },
  ]
  expect(rpoBreaches(mirrors).map((breach) => breach.mirror)).toEqual(['far', 'also-slow', 'slow'])
  expect(rpoBreaches(mirrors)[0]).toEqual({ mirror: 'far', records: 500, seconds: 20, known: true, rpoRecords: 10, rpoSeconds: 30 })
})
