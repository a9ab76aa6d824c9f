import 'server-only'
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto'

/**
 * Cluster connection secrets as the control cluster holds them: AES-256-GCM under a key derived from
 * MIRRORBOARD_SECRET_KEY (scrypt, a fixed salt so every instance derives the same key; the secret key itself should
 * be long and random). GCM authenticates: a box sealed under another key, or altered, does not open.
 */
export interface SealedBox {
  v: 1
  /** 12-byte nonce, base64, new for every box. */
  iv: string
  /** 16-byte authentication tag, base64. */
  tag: string
  data: string
}

export class WrongSecretKeyError extends Error {
  readonly code = 'WRONG_SECRET_KEY'
}

const SALT = 'mirrorboard-control-secrets-v1'

export function deriveKey(secretKey: string): Buffer {
  return scryptSync(secretKey, SALT, 32)
}

export function seal(plaintext: string, key: Buffer, context: string): SealedBox {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  // The context (the record's key) is authenticated too: a box moved under another cluster's name does not open.
  cipher.setAAD(Buffer.from(context, 'utf8'))
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') }
}

export function open(box: SealedBox, key: Buffer, context: string): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(Buffer.from(box.tag, 'base64'))
    return Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]).toString('utf8')
  } catch {
    throw new WrongSecretKeyError(`the secrets of ${context} on the control cluster do not open with this MIRRORBOARD_SECRET_KEY (another key sealed them, or they were altered)`)
  }
}

export function isSealedBox(value: unknown): value is SealedBox {
  if (typeof value !== 'object' || value === null) return false
  const box = value as Record<string, unknown>
  return box.v === 1 && typeof box.iv === 'string' && typeof box.tag === 'string' && typeof box.data === 'string'
}
