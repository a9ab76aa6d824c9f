/**
 * How two records that should be one differ, in words an operator can act on: which field, and both sides'
 * values shortened for the screen. Shared by both comparison modes.
 */
import type { ContentRecord } from './types'

const utf8 = new TextDecoder('utf-8', { fatal: true })
const PREVIEW_CHARACTERS = 32

/** A short, printable rendering of a key, value or header value: text when it is UTF-8, else hex. */
export function previewBytes(bytes: Uint8Array | null): string {
  if (bytes === null) return 'null'
  let text: string
  try {
    text = JSON.stringify(utf8.decode(bytes))
  } catch {
    text = `0x${Array.from(bytes.subarray(0, PREVIEW_CHARACTERS / 2), (byte) => byte.toString(16).padStart(2, '0')).join('')}${bytes.length > PREVIEW_CHARACTERS / 2 ? '…' : ''}`
  }
  return text.length > PREVIEW_CHARACTERS + 2 ? `${text.slice(0, PREVIEW_CHARACTERS + 1)}…"` : text
}

export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function sameHeaders(a: ContentRecord['headers'], b: ContentRecord['headers']): boolean {
  return a.length === b.length && a.every((header, index) => header.key === b[index]!.key && sameBytes(header.value, b[index]!.value))
}

function describeHeaders(headers: ContentRecord['headers']): string {
  return headers.length === 0 ? 'none' : headers.map((header) => `${header.key}=${previewBytes(header.value)}`).join(', ')
}

/**
 * The fields in which `destination` differs from `source`, as "field: source … / destination …" clauses
 * joined by "; ", or null when they hold the same record.
 */
export function describeRecordDifference(source: ContentRecord, destination: ContentRecord): string | null {
  const clauses: string[] = []
  if (source.type !== destination.type) clauses.push(`type: source ${source.type} / destination ${destination.type}`)
  if (!sameBytes(source.key, destination.key)) clauses.push(`key: source ${previewBytes(source.key)} / destination ${previewBytes(destination.key)}`)
  if (!sameBytes(source.value, destination.value)) clauses.push(`value: source ${previewBytes(source.value)} / destination ${previewBytes(destination.value)}`)
  if (!sameHeaders(source.headers, destination.headers)) clauses.push(`headers: source ${describeHeaders(source.headers)} / destination ${describeHeaders(destination.headers)}`)
  if (source.timestamp !== destination.timestamp) clauses.push(`timestamp: source ${source.timestamp} / destination ${destination.timestamp}`)
  return clauses.length === 0 ? null : clauses.join('; ')
}
