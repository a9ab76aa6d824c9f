import { z } from 'zod'

export const Role = z.enum(['viewer', 'operator'])
export type Role = z.infer<typeof Role>

export const SessionRequest = z.strictObject({ token: z.string().min(1).max(1024) })
export type SessionRequest = z.infer<typeof SessionRequest>

export const Session = z.object({
  role: Role,
  /** How this request was authenticated. */
  via: z.enum(['cookie', 'bearer']),
  /** When the session cookie stops working; null for bearer tokens. */
  expiresAt: z.number().int().nullable(),
})
export type Session = z.infer<typeof Session>
