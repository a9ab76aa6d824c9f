/** One benchmark figure, optionally measured against a baseline taken in the same run. */
export interface BenchResult {
  name: string
  value: number
  unit: string
  baseline?: { name: string; value: number }
  /** value / baseline.value (or as the entry documents for lower-is-better figures). */
  ratio?: number
  goal?: string
}

/** The median of repeated runs: machines here are shared and noisy, so single runs mislead. */
export function median(values: number[]): number {
  if (values.length === 0) throw new RangeError('median of no values')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export function formatResult(result: BenchResult): string {
  const value = `${formatNumber(result.value)} ${result.unit}`
  const baseline = result.baseline ? `  baseline ${result.baseline.name}: ${formatNumber(result.baseline.value)} ${result.unit}` : ''
  const ratio = result.ratio === undefined ? '' : `  ratio ${result.ratio.toFixed(2)}`
  const goal = result.goal ? `  (goal ${result.goal})` : ''
  return `${result.name.padEnd(48)} ${value}${baseline}${ratio}${goal}`
}

function formatNumber(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2)
}
