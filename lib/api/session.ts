import { z } from 'zod'
import { Grant } from '../auth/grants'

export const Role = z.enum(['viewer', 'operator'])
export type Role = z.infer<typeof Role>

export const SessionRequest = z.strictObject({ token: z.string().min(1).max(1024) })
export type SessionRequest = z.infer<typeof SessionRequest>

export const Session = z.object({
  role: Role,
  /** How this request was authenticated. */
  via: z.enum(['cookie', 'bearer']),
  /** When the session cookie stops working (the sooner of its idle and absolute end); null for bearer tokens. */
  expiresAt: z.number().int().nullable(),
  /** Signed in through the identity provider, or with a token (API.md Round 3 calls this `via`; `via` kept its meaning). */
  method: z.enum(['oidc', 'token']),
  /** The provider's subject, or `token:<role>`. */
  subject: z.string(),
  name: z.string().optional(),
  email: z.string().optional(),
  /** What the caller may do where: the operator token is `admin` everywhere, people what the roles file gives them. */
  roles: z.array(Grant),
})
export type Session = z.infer<typeof Session>

export const SignOut = z.object({
  /** The identity provider's sign-out page to open next (RP-initiated logout), when it has one. */
  endSessionUrl: z.string().nullable(),
})
export type SignOut = z.infer<typeof SignOut>

export const OidcSignInQuery = z.object({
  // 512 characters: an app path is short, and a longer one percent-encoded (up to 12 bytes a character) could
  // outgrow the 16 KiB request head Node accepts, which answers 431 before any route runs.
  next: z.string().max(512).optional().describe('The page to open after signing in (a path of this app).'),
})
