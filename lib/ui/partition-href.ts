/** The partition page of `topic`-`partition` in `mirror` (UI.md §1). */
export function partitionHref(mirror: string, topic: string, partition: number): string {
  return `/mirrors/${encodeURIComponent(mirror)}/partitions/${encodeURIComponent(topic)}/${partition}`
}
