/**
 * Numbers and times for people: compact counts (1.2k), bytes (3.4 MB), durations (4.1 s, 2 min) and
 * relative times (3 s ago). Offsets are never abbreviated: `formatOffset` keeps every digit. Every
 * compact form has an exact counterpart (`exact*`) for the hover title.
 */

const COUNT_UNITS = [
  { limit: 1e12, suffix: 'T' },
  { limit: 1e9, suffix: 'G' },
  { limit: 1e6, suffix: 'M' },
  { limit: 1e3, suffix: 'k' },
] as const

/** 950 → "950", 1234 → "1.2k", 15_300 → "15k", 2_500_000 → "2.5M". */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return '–'
  const sign = value < 0 ? '−' : ''
  const magnitude = Math.abs(value)
  for (const { limit, suffix } of COUNT_UNITS) {
    if (magnitude >= limit) {
      const scaled = magnitude / limit
      const text = scaled >= 10 ? String(Math.round(scaled)) : trimZero(scaled.toFixed(1))
      // 999.96k rounds to 1000k: say 1.0M instead.
      if (text === '1000' && suffix !== 'T') return formatCount(value < 0 ? -limit * 1000 : limit * 1000)
      return `${sign}${text}${suffix}`
    }
  }
  return `${sign}${Number.isInteger(magnitude) ? magnitude : trimZero(magnitude.toFixed(1))}`
}

/**
 * A rate per second, honest at both ends: 0.2 → "0.2", 0.04 → "<0.1" (something flows, too little to show),
 * 0 → "0", 1234.5 → "1.2k". A slow mirror's 0.2 records/s rounded to a whole number read "0", as if nothing flowed.
 */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond < 0) return '–'
  if (perSecond === 0) return '0'
  if (perSecond < 0.05) return '<0.1'
  return formatCount(perSecond < 10 ? Math.round(perSecond * 10) / 10 : Math.round(perSecond))
}

/** A compact count with its noun: "1 partition", "2k partitions", "1 open transaction". */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(count)} ${count === 1 ? noun : plural}`
}

/**
 * Every digit, grouped in threes with narrow no-break spaces: 1234567 → "1 234 567" (no locale surprises). Not thin
 * spaces (U+2009): a line could break at them, splitting one offset over two lines in a narrow cell.
 */
export function formatOffset(value: number): string {
  if (!Number.isFinite(value)) return '–'
  const digits = String(Math.trunc(Math.abs(value)))
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f')
  return value < 0 ? `−${grouped}` : grouped
}

/**
 * A whole count with comma thousands separators, as `toLocaleString('en-US')` writes it: 1234567 → "1,234,567". Without
 * Intl: a page's first Intl call loads the locale data, about 0.1 s of a phone's CPU while the page hydrates
 * (Lighthouse's total blocking time). A fraction or a non-finite value is left to Intl.
 */
export function formatInteger(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US')
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return value < 0 ? `-${digits}` : digits
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const

/** 512 → "512 B", 3_400_000 → "3.4 MB" (decimal units, as Kafka's tools print them). */
export function formatBytes(value: number): string {
  if (!Number.isFinite(value) || value < 0) return '–'
  let scaled = value
  let unit = 0
  while (scaled >= 1000 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1000
    unit += 1
  }
  const text = unit === 0 ? String(Math.round(scaled)) : scaled >= 10 ? String(Math.round(scaled)) : trimZero(scaled.toFixed(1))
  return `${text} ${BYTE_UNITS[unit]}`
}

/** 0 → "0 s", 350 → "350 ms", 4_100 → "4.1 s", 125_000 → "2 min 5 s", 7_200_000 → "2 h". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '–'
  const value = Math.max(0, ms)
  if (value === 0) return '0 s'
  if (value < 1000) return `${Math.round(value)} ms`
  if (value < 10_000) return `${trimZero((value / 1000).toFixed(1))} s`
  if (value < 60_000) return `${Math.round(value / 1000)} s`
  if (value < 3_600_000) {
    const minutes = Math.floor(value / 60_000)
    const seconds = Math.round((value % 60_000) / 1000)
    return seconds === 0 || minutes >= 10 ? `${minutes} min` : `${minutes} min ${seconds} s`
  }
  if (value < 86_400_000) {
    const hours = Math.floor(value / 3_600_000)
    const minutes = Math.round((value % 3_600_000) / 60_000)
    return minutes === 0 || hours >= 10 ? `${hours} h` : `${hours} h ${minutes} min`
  }
  const days = Math.floor(value / 86_400_000)
  const hours = Math.round((value % 86_400_000) / 3_600_000)
  return hours === 0 || days >= 10 ? `${days} d` : `${days} d ${hours} h`
}

/** "just now", "3 s ago", "2 min ago", "in 5 s" (a clock a little ahead), relative to `now`. */
export function formatRelative(at: number, now: number): string {
  const delta = now - at
  if (Math.abs(delta) < 1000) return 'just now'
  if (delta < 0) return `in ${formatDuration(-delta)}`
  const coarse = delta < 60_000 ? `${Math.floor(delta / 1000)} s` : formatDuration(Math.floor(delta / 60_000) * 60_000)
  return `${coarse} ago`
}

/** The exact time for a hover title: ISO 8601 in UTC with milliseconds. */
export function exactTime(at: number): string {
  return new Date(at).toISOString()
}

/** "12:01:03" in UTC: short clock times for timelines and chart axes. */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19)
}

/** "2026-12-01 12:01:03 UTC". */
export function dateTime(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

function trimZero(text: string): string {
  return text.endsWith('.0') ? text.slice(0, -2) : text
}
