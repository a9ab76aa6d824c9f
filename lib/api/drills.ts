import { z } from 'zod'

/**
 * A drill's status (API.md §"Round 3": `Drill.status`). Declared ahead of the drill endpoints so the UI's
 * status table (lib/ui/status-style.ts) covers it from the start: the drill schema joins it here.
 */
export const DrillStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled'])
export type DrillStatus = z.infer<typeof DrillStatus>
