/**
 * Scenario narrations write logs inline, as the server's formatTable does: "0 DATA 4001 A=1 · 1 DATA 4001
 * B=2 · 3 COMMIT 4001 · 5 DATA — Z=10" (offset, record type, producer id or "—", key=value). This splits a
 * narration into its prose and those logs, so the page can draw each log as a row of cells, the way the
 * KIP's tables read, instead of a run-on sentence.
 */

export type LogRecordType = 'DATA' | 'COMMIT' | 'ABORT' | 'MIRROR_PID_RESET' | 'CONTROL'

export interface NarratedRecord {
  readonly offset: number
  readonly type: LogRecordType
  readonly producerId: number | null
  /** "A=1"; null for markers. */
  readonly content: string | null
  /** The record as the narration wrote it. */
  readonly text: string
}

export type NarrationPart = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'log'; readonly records: readonly NarratedRecord[] }

// A content never ends in sentence punctuation: "X=9." is the record X=9 and a full stop.
const ENTRY = String.raw`\d+ (?:DATA|COMMIT|ABORT|MIRROR_PID_RESET|CONTROL) (?:\d+|—)(?: [^\s=·]+=[^\s·]*[^\s·.,;:])?`
const LOG = new RegExp(String.raw`${ENTRY}(?: · ${ENTRY})+`, 'g')
const ENTRY_PARTS = /^(\d+) ([A-Z_]+) (\d+|—)(?: (.+))?$/

export function splitNarration(narration: string): NarrationPart[] {
  const parts: NarrationPart[] = []
  let last = 0
  for (const match of narration.matchAll(LOG)) {
    if (match.index > last) parts.push({ kind: 'text', text: narration.slice(last, match.index) })
    parts.push({ kind: 'log', records: match[0].split(' · ').map(parseEntry) })
    last = match.index + match[0].length
  }
  if (last < narration.length) parts.push({ kind: 'text', text: narration.slice(last) })
  return parts
}

function parseEntry(text: string): NarratedRecord {
  const [, offset, type, producerId, content] = ENTRY_PARTS.exec(text) ?? []
  return {
    offset: Number(offset),
    type: type as LogRecordType,
    producerId: producerId === undefined || producerId === '—' ? null : Number(producerId),
    content: content ?? null,
    text,
  }
}
