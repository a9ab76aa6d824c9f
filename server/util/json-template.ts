/**
 * A frozen object may carry, under `jsonTemplate` (JSON.stringify skips symbol keys), a template it shares
 * with other frozen objects whose JSON differs from its own in the values of a few named members only; the
 * response encoder (server/http/json-body.ts) then writes the template's text around those values instead of
 * serializing the object. Partition snapshots share one per partition while only their `lastFetchAt` (and
 * the `lagAsOf` that follows it) moves, which every fetch round does for every partition of a mirror.
 */
// From the global registry, and templates are recognised by shape, not class: Next loads this module once for
// the engine (instrumentation) and again for the route handlers, and each copy would make its own symbol.
export const jsonTemplate = Symbol.for('mirrorboard.jsonTemplate')

export class JsonTemplate {
  readonly volatileKeys: readonly string[]
  /**
   * The JSON around the volatile members' values once an object has been encoded: text, value, text, ...,
   * text, with the values in the order the members appear (`order` holds their indexes in `volatileKeys`).
   */
  parts: { texts: Buffer[]; order: number[] } | null = null
  /** The JSON could not be split at a member (its key appears twice, or not at all): each object is encoded whole. */
  unsplittable = false
  /** The volatile values last written with this template, and their JSON: most lists are read again unchanged. */
  lastValues: unknown[] = []
  lastValueJsons: Array<Buffer | null> = []

  constructor(...volatileKeys: string[]) {
    this.volatileKeys = volatileKeys
  }
}

export function templateOf(value: object): JsonTemplate | undefined {
  const template = (value as { [jsonTemplate]?: unknown })[jsonTemplate]
  return typeof template === 'object' && template !== null && Array.isArray((template as JsonTemplate).volatileKeys) ? (template as JsonTemplate) : undefined
}
