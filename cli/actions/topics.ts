import { mirrorEndpoints } from '@/lib/api/endpoints'
import type { Action } from '../action'
import { MIRROR_OPTION, TOPICS_OPTION } from '../action'
import { option } from '../flags'
import { ifMatch, patternsOf, readMirror, selectTopics } from '../mirror-reads'

/**
 * The KIP's topic actions: `--start --topics 'regex,…' [--exclude 'regex,…']` (the patterns are kept in the
 * mirror's topics.include, so source topics created later that match are mirrored too; --exclude goes to
 * topics.exclude, which wins), and `--pause`, `--resume`, `--recover` of the mirror's topics the patterns match
 * (all of them without --topics). `--delete` removes a mirror whose topics are all STOPPED.
 */

interface Skipped {
  readonly topic: string
  readonly partition: number
  readonly state: string
}

function skippedLine(skipped: readonly Skipped[] | undefined): string {
  if (skipped === undefined || skipped.length === 0) return ''
  const shown = skipped.slice(0, 20).map((entry) => `${entry.topic}-${entry.partition} (${entry.state})`)
  return `Left alone, not in a state this applies to: ${shown.join(', ')}${skipped.length > shown.length ? `, … ${skipped.length - shown.length} more` : ''}\n`
}

export const startAction: Action = {
  name: 'start',
  flag: '--start',
  origin: 'kip',
  summary: 'Start mirroring the source topics that match, now and as they appear',
  usage: "--start --mirror M --topics 'regex,…' [--exclude 'regex,…']",
  examples: ["mirrorboard --start --mirror dr --topics 'orders.*,payments'", "mirrorboard --start --mirror dr --topics '.*' --exclude 'tmp\\..*'"],
  options: [
    MIRROR_OPTION,
    option('--topics <regex,...>', 'source topics matching any of these patterns (RE2, whole names)'),
    option('--exclude <regex,...>', "never these, even when --topics matches (kept in the mirror's topics.exclude: mirrored topics it matches are stopped)"),
  ],
  details: "Patterns are kept in the mirror's topics.include: a matching topic created on the source later is mirrored too.",
  async run({ api, out, flags }) {
    const mirrorName = flags.required('mirror')
    const patterns = patternsOf(flags, 'topics')
    if (patterns === undefined) throw flags.usageError('--topics is required')
    const exclude = patternsOf(flags, 'exclude')
    let mirror = await readMirror(api, mirrorName)
    if (exclude !== undefined) {
      const current = Array.isArray(mirror.config['topics.exclude']) ? mirror.config['topics.exclude'].map(String) : []
      const merged = [...new Set([...current, ...exclude])]
      if (merged.length !== current.length) {
        mirror = await api.call(mirrorEndpoints.patchMirror, { params: { mirror: mirrorName }, body: { config: { 'topics.exclude': merged } }, headers: ifMatch(mirror) })
        out.note(`topics.exclude of ${mirrorName}: ${merged.join(', ')}`)
      }
    }
    const answer = await api.call(mirrorEndpoints.startMirrorTopics, { params: { mirror: mirrorName }, body: { patterns }, headers: ifMatch(mirror) })
    const topics = 'topics' in answer ? answer.topics : []
    const skipped = 'skipped' in answer ? answer.skipped : undefined
    out.result(answer, () =>
      topics.length === 0 && (skipped?.length ?? 0) === 0
        ? `No matching topics found yet. Patterns saved in ${mirrorName}'s topics.include: ${patterns.join(', ')}\n`
        : `Started ${topics.length} topic${topics.length === 1 ? '' : 's'} of ${mirrorName}: ${topics.join(', ') || 'none'}\n${skippedLine(skipped)}`,
    )
  },
}

type TopicCommand = 'pause' | 'resume' | 'recover'

const COMMANDS = {
  pause: { endpoint: mirrorEndpoints.pauseMirrorTopics, past: 'Paused', summary: 'Pause mirroring (topics stay read-only and resume where they were)' },
  resume: { endpoint: mirrorEndpoints.resumeMirrorTopics, past: 'Resumed', summary: 'Resume paused topics' },
  recover: { endpoint: mirrorEndpoints.recoverMirrorTopics, past: 'Recovering', summary: 'Retry FAILED partitions now' },
} as const

function topicAction(command: TopicCommand): Action {
  const { endpoint, past, summary } = COMMANDS[command]
  return {
    name: command,
    flag: `--${command}`,
    origin: 'kip',
    summary,
    usage: `--${command} --mirror M [--topics 'regex,…']`,
    examples: [`mirrorboard --${command} --mirror dr`, `mirrorboard --${command} --mirror dr --topics 'orders.*'`],
    options: [MIRROR_OPTION, TOPICS_OPTION],
    async run({ api, out, flags }) {
      const mirrorName = flags.required('mirror')
      const patterns = patternsOf(flags, 'topics')
      // Without patterns the server takes every topic itself, and skips the partitions the command does not apply to.
      const topics = patterns === undefined ? undefined : selectTopics(await readMirror(api, mirrorName), patterns)
      const answer = await api.call(endpoint, { params: { mirror: mirrorName }, body: topics === undefined ? {} : { topics } })
      out.result(answer, () => `${past} ${answer.topics.length} topic${answer.topics.length === 1 ? '' : 's'} of ${mirrorName}: ${answer.topics.join(', ') || 'none'}\n${skippedLine(answer.skipped)}`)
    },
  }
}

export const pauseAction = topicAction('pause')
export const resumeAction = topicAction('resume')
export const recoverAction = topicAction('recover')

export const deleteAction: Action = {
  name: 'delete',
  flag: '--delete',
  origin: 'kip',
  summary: 'Delete a mirror whose topics are all STOPPED',
  usage: '--delete --mirror M',
  examples: ['mirrorboard --delete --mirror dr'],
  options: [MIRROR_OPTION],
  async run({ api, out, flags }) {
    const mirror = flags.required('mirror')
    await api.call(mirrorEndpoints.deleteMirror, { params: { mirror } })
    out.result({ deleted: mirror }, () => `Deleted mirror ${mirror}\n`)
  },
}
