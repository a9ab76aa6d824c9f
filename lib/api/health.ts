import { z } from 'zod'

export const HealthResponse = z.object({
  status: z.literal('ok'),
  version: z.string(),
  /**
   * Several instances only (MIRRORBOARD_CONTROL_BOOTSTRAP): whether the control cluster answers this instance, since
   * when, and how old its view of the shared state is. This endpoint is public, so the last error (which names hosts)
   * is on GET /instances only. The status stays `ok` while it is unreachable: the instance keeps serving reads and
   * mirroring what it runs (docs/high-availability.md, "Failure behaviour").
   */
  control: z
    .object({
      reachable: z.boolean(),
      /** Epoch ms: unreachable since its last answer, or reachable since its first answer after the last outage. */
      since: z.number().int(),
      /** The oldest of this instance's copies of the control topics (ms); null before each was read once. */
      viewAgeMs: z.number().int().nonnegative().nullable(),
    })
    .optional(),
})
export type HealthResponse = z.infer<typeof HealthResponse>
