import type { MirrorConfigInput } from '@/lib/api/mirrors'
import { configText, MIRROR_CONFIG_FIELDS, type MirrorConfigKey } from './mirror-config-fields'
import { numberOrUndefined, splitList } from './form-issues'

/** The text of each settings box, by config key. */
export type ConfigTexts = Readonly<Partial<Record<MirrorConfigKey, string>>>

function valueOf(kind: 'integer' | 'patterns' | 'names', text: string): number | string[] | undefined {
  if (kind === 'integer') return numberOrUndefined(text)
  return splitList(text)
}

/**
 * A new mirror's config: only the boxes the operator filled; an empty box keeps the default. Lists are one
 * entry a line (or comma-separated); a number box that does not hold a whole number gives NaN, which the
 * schema refuses with its own message.
 */
export function createConfigInput(texts: ConfigTexts): MirrorConfigInput {
  const config: Record<string, number | string[]> = {}
  for (const field of MIRROR_CONFIG_FIELDS) {
    const text = texts[field.key] ?? ''
    if (text.trim() === '') continue
    const value = valueOf(field.kind, text)
    if (value !== undefined) config[field.key] = value
  }
  return config as MirrorConfigInput
}

/** The boxes of the settings page, filled with the mirror's current config. */
export function textsOfConfig(config: Readonly<Record<string, unknown>>): Record<MirrorConfigKey, string> {
  return Object.fromEntries(MIRROR_CONFIG_FIELDS.map((field) => [field.key, configText(config[field.key])])) as Record<MirrorConfigKey, string>
}

/**
 * The PATCH of the settings page: the keys whose box changed from the current config. An emptied list box is
 * an empty list (a setting, not "the default"); an emptied number box is NaN, refused by the schema, since a
 * PATCH cannot remove a setting.
 */
export function changedConfigInput(current: Readonly<Record<string, unknown>>, texts: ConfigTexts): MirrorConfigInput {
  const changed: Record<string, number | string[]> = {}
  for (const field of MIRROR_CONFIG_FIELDS) {
    const text = texts[field.key]
    if (text === undefined) continue
    const before = current[field.key]
    // A key the mirror does not hold (an older server) left empty is not a change.
    if (before === undefined && text.trim() === '') continue
    const next = field.kind === 'integer' ? (numberOrUndefined(text) ?? Number.NaN) : splitList(text)
    const same = Array.isArray(next) ? Array.isArray(before) && before.length === next.length && before.every((item, index) => item === next[index]) : before === next
    if (!same) changed[field.key] = next
  }
  return changed as MirrorConfigInput
}
