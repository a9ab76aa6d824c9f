import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml'
import { namePatternProblem } from '../mirror/name-patterns'
import { GrantRole, type Grant } from './grants'

/**
 * The roles file (MIRRORBOARD_ROLES_FILE, YAML): which identity-provider groups, subjects or e-mail addresses get
 * which role, where. Read once at start; any mistake stops the start with its line, because a typo in a role
 * or a pattern would otherwise silently give someone less, or more, than meant.
 *
 *   rules:
 *     - group: dr-eu           # one of group / subject / email
 *       role: operator         # viewer | operator | admin
 *       mirrors: [".*-to-eu-west"]
 *     - group: dr-eu
 *       role: viewer
 *     - email: alice@example.com
 *       role: admin
 */

export type RoleRuleMatch = { group: string } | { subject: string } | { email: string }
export interface RoleRule {
  readonly match: RoleRuleMatch
  readonly grant: Grant
  /** Where the rule starts in the file, for messages. */
  readonly line: number
}

/** Who signed in, as the ID token says. */
export interface Identity {
  readonly subject: string
  readonly email?: string | undefined
  readonly groups: readonly string[]
}

export class RolesFileError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`)
    this.name = 'RolesFileError'
  }
}

const RULE_KEYS = new Set(['group', 'subject', 'email', 'role', 'clusters', 'mirrors'])
const WHO_KEYS = ['group', 'subject', 'email'] as const

export function parseRolesFile(text: string): RoleRule[] {
  const lines = new LineCounter()
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true })
  const lineOf = (node: Node | null | undefined): number => (node?.range ? lines.linePos(node.range[0]).line : 1)
  const firstError = document.errors[0]
  if (firstError !== undefined) throw new RolesFileError(firstError.linePos?.[0]?.line ?? 1, firstError.message.split('\n')[0] ?? 'not YAML')
  const root = document.contents
  if (!isMap(root)) throw new RolesFileError(lineOf(root), 'the file must be a map with a "rules" list')
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : ''
    if (key !== 'rules') throw new RolesFileError(lineOf(pair.key as Node), `unknown key "${key}" (the file has one key, "rules")`)
  }
  const list = root.get('rules', true)
  if (!isSeq(list)) throw new RolesFileError(lineOf(list as Node | undefined ?? root), '"rules" must be a list of rules')
  return list.items.map((item) => parseRule(item as Node, lineOf))
}

function parseRule(node: Node, lineOf: (node: Node | null | undefined) => number): RoleRule {
  const line = lineOf(node)
  if (!isMap(node)) throw new RolesFileError(line, 'a rule must be a map such as { group: dr-eu, role: operator }')
  const values = new Map<string, Node>()
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : ''
    if (!RULE_KEYS.has(key)) {
      throw new RolesFileError(lineOf(pair.key as Node), `unknown key "${key}" (a rule has group, subject or email; role; and optionally clusters, mirrors)`)
    }
    values.set(key, pair.value as Node)
  }
  const who = WHO_KEYS.filter((key) => values.has(key))
  if (who.length !== 1) throw new RolesFileError(line, `a rule names exactly one of group, subject or email${who.length > 1 ? `, not ${who.join(' and ')}` : ''}`)
  const whoKey = who[0] as (typeof WHO_KEYS)[number]
  const whoValue = text(values.get(whoKey), whoKey, lineOf)
  const roleNode = values.get('role')
  if (roleNode === undefined) throw new RolesFileError(line, 'a rule needs a role: viewer, operator or admin')
  const roleText = text(roleNode, 'role', lineOf)
  const role = GrantRole.safeParse(roleText)
  if (!role.success) throw new RolesFileError(lineOf(roleNode), `unknown role "${roleText}" (viewer, operator or admin)`)
  const grant: Grant = { role: role.data }
  for (const key of ['clusters', 'mirrors'] as const) {
    const patterns = values.get(key)
    if (patterns === undefined) continue
    if (!isSeq(patterns) || patterns.items.length === 0) throw new RolesFileError(lineOf(patterns), `${key} must be a non-empty list of name patterns`)
    grant[key] = patterns.items.map((item) => {
      const source = text(item as Node, key, lineOf)
      const problem = namePatternProblem(source)
      if (problem !== null) throw new RolesFileError(lineOf(item as Node), `${key}: "${source}" is not a pattern: ${problem}`)
      return source
    })
  }
  const match = { [whoKey]: whoValue } as RoleRuleMatch
  return { match, grant, line }
}

function text(node: Node | undefined, key: string, lineOf: (node: Node | null | undefined) => number): string {
  if (!isScalar(node) || (typeof node.value !== 'string' && typeof node.value !== 'number') || String(node.value).trim() === '') {
    throw new RolesFileError(lineOf(node), `${key} must be a non-empty text`)
  }
  return String(node.value)
}

/** The grants of the rules that name this person: any of their groups, their subject, or their e-mail address. */
export function grantsFor(rules: readonly RoleRule[], identity: Identity): Grant[] {
  const email = identity.email?.toLowerCase()
  return rules
    .filter(({ match }) =>
      'group' in match ? identity.groups.includes(match.group) : 'subject' in match ? match.subject === identity.subject : email !== undefined && match.email.toLowerCase() === email,
    )
    .map(({ grant }) => grant)
}
