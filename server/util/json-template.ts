/**
 * A frozen object may carry, under `jsonTemplate` (JSON.stringify skips symbol keys), a template it shares
 * with other frozen objects whose JSON differs from its own in the value of one member only; the response
 * encoder (server/http/json-body.ts) then writes the template's text around that one value instead of
 * serializing the object. Partition snapshots share one per partition while only their `lastFetchAt`
 * moves, which every fetch round does for every partition of a mirror.
 */
// From the global registry, and templates are recognised by shape, not class: Next loads this module once for
// the engine (instrumentation) and again for the route handlers, and each copy would make its own symbol.
export const jsonTemplate = Symbol.for('mirrorboard.jsonTemplate')

export class JsonTemplate {
  /** The JSON before and after the volatile member's value, once an object has been encoded. */
  parts: { head: Buffer; tail: Buffer } | null = null
  /** The JSON could not be split at the member (its key appears twice): each object is encoded whole. */
  unsplittable = false
  /** The volatile value last written with this template, and its JSON: most lists are read again unchanged. */
  lastValue: unknown = undefined
  lastValueJson: Buffer | null = null

  constructor(readonly volatileKey: string) {}
}

export function templateOf(value: object): JsonTemplate | undefined {
  const template = (value as { [jsonTemplate]?: unknown })[jsonTemplate]
  return typeof template === 'object' && template !== null && typeof (template as JsonTemplate).volatileKey === 'string' ? (template as JsonTemplate) : undefined
}
