import type { MirrorConfigInput, MirrorObjectives } from '@/lib/api/mirrors'
import { configText, MIRROR_CONFIG_FIELDS, objectiveOf, type ConfigFieldKind, type MirrorConfigKey } from './mirror-config-fields'
import { decimalOrUndefined, numberOrUndefined, splitList } from './form-issues'

/** The text of each settings box, by config key. */
export type ConfigTexts = Readonly<Partial<Record<MirrorConfigKey, string>>>

function valueOf(kind: ConfigFieldKind, text: string): number | string[] | undefined {
  if (kind === 'integer') return numberOrUndefined(text)
  if (kind === 'number') return decimalOrUndefined(text)
  return splitList(text)
}

/** The objectives the boxes hold (empty boxes left out); null when every box is empty. */
function objectivesOfTexts(texts: ConfigTexts): Record<string, number> | null {
  const objectives: Record<string, number> = {}
  for (const field of MIRROR_CONFIG_FIELDS) {
    const objective = objectiveOf(field.key)
    if (objective === null) continue
    const value = valueOf(field.kind, texts[field.key] ?? '')
    if (typeof value === 'number') objectives[objective] = value
  }
  return Object.keys(objectives).length === 0 ? null : objectives
}

/**
 * A new mirror's config: only the boxes the operator filled; an empty box keeps the default. Lists are one
 * entry a line (or comma-separated); a number box that does not hold a number gives NaN, which the schema
 * refuses with its own message. The objectives' boxes make one `objectives` object.
 */
export function createConfigInput(texts: ConfigTexts): MirrorConfigInput {
  const config: Record<string, unknown> = {}
  for (const field of MIRROR_CONFIG_FIELDS) {
    if (objectiveOf(field.key) !== null) continue
    const text = texts[field.key] ?? ''
    if (text.trim() === '') continue
    const value = valueOf(field.kind, text)
    if (value !== undefined) config[field.key] = value
  }
  const objectives = objectivesOfTexts(texts)
  if (objectives !== null) config.objectives = objectives
  return config as MirrorConfigInput
}

function currentValue(config: Readonly<Record<string, unknown>>, key: MirrorConfigKey): unknown {
  const objective = objectiveOf(key)
  if (objective === null) return config[key]
  const objectives = config.objectives
  return typeof objectives === 'object' && objectives !== null ? (objectives as Partial<MirrorObjectives>)[objective] : undefined
}

/** The boxes of the settings page, filled with the mirror's current config. */
export function textsOfConfig(config: Readonly<Record<string, unknown>>): Record<MirrorConfigKey, string> {
  return Object.fromEntries(MIRROR_CONFIG_FIELDS.map((field) => [field.key, configText(currentValue(config, field.key))])) as Record<MirrorConfigKey, string>
}

/**
 * The PATCH of the settings page: the keys whose box changed from the current config. An emptied list box is
 * an empty list (a setting, not "the default"); an emptied number box is NaN, refused by the schema, since a
 * PATCH cannot remove a setting. The objectives go as one object when any of their boxes changed (null when
 * every box is emptied: no objectives).
 */
export function changedConfigInput(current: Readonly<Record<string, unknown>>, texts: ConfigTexts): MirrorConfigInput {
  const changed: Record<string, unknown> = {}
  let objectivesChanged = false
  for (const field of MIRROR_CONFIG_FIELDS) {
    const text = texts[field.key]
    if (text === undefined) continue
    const before = currentValue(current, field.key)
    // A key the mirror does not hold (an older server, an objective not set) left empty is not a change.
    if (before === undefined && text.trim() === '') continue
    if (objectiveOf(field.key) !== null) {
      objectivesChanged ||= valueOf(field.kind, text) !== before
      continue
    }
    const next = field.kind === 'integer' ? (numberOrUndefined(text) ?? Number.NaN) : splitList(text)
    const same = Array.isArray(next) ? Array.isArray(before) && before.length === next.length && before.every((item, index) => item === next[index]) : before === next
    if (!same) changed[field.key] = next
  }
  if (objectivesChanged) {
    const boxes = Object.fromEntries(MIRROR_CONFIG_FIELDS.filter((field) => objectiveOf(field.key) !== null).map((field) => [field.key, texts[field.key] ?? configText(currentValue(current, field.key))]))
    changed.objectives = objectivesOfTexts(boxes)
  }
  return changed as MirrorConfigInput
}
