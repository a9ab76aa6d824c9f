import { systemEndpoints } from '@/lib/api/endpoints'
import packageJson from '../../package.json'
import type { Action } from '../action'
import { completionScript, SHELLS } from '../completion'
import { renderFields } from '../format'
import { alertsAction, auditAction } from './alerts-audit'
import { clustersAction } from './clusters'
import { createAction } from './create'
import { describeAction } from './describe'
import { drillAction } from './drill'
import { failbackAction } from './failback'
import { listAction } from './list'
import { objectivesAction } from './objectives'
import { operationsAction } from './operations'
import { stopAction } from './stop'
import { deleteAction, pauseAction, recoverAction, resumeAction, startAction } from './topics'
import { verifyAction } from './verify'

/** Every action, in the order --help lists them: the KIP's first, as its tool orders them, then ours. */

const completionAction: Action = {
  name: 'completion',
  flag: '--completion <shell>',
  origin: 'mirrorboard',
  summary: 'Print the shell completion script for bash or zsh',
  usage: '--completion bash|zsh',
  examples: ['eval "$(mirrorboard --completion bash)"', 'mirrorboard --completion zsh > "${fpath[1]}/_mirrorboard"'],
  options: [],
  async run({ io, flags }) {
    const shell = flags.choice('completion', SHELLS)
    if (shell === undefined) throw flags.usageError(`--completion takes ${SHELLS.join(' or ')}`)
    io.stdout.write(completionScript(shell, ACTIONS))
  },
}

const versionAction: Action = {
  name: 'version',
  flag: '--version',
  origin: 'mirrorboard',
  summary: "This command line's version, and the server's",
  usage: '--version',
  examples: ['mirrorboard --version --server https://mirrorboard.example:3000'],
  options: [],
  async run({ api, out }) {
    const health = await api.call(systemEndpoints.health)
    const answer = { version: packageJson.version, server: { url: api.connection.server, version: health.version, status: health.status } }
    out.result(answer, () => renderFields([['mirrorboard', packageJson.version], ['server', `${api.connection.server}, version ${health.version} (${health.status})`]]))
  },
}

export const ACTIONS: readonly Action[] = [
  createAction,
  startAction,
  stopAction,
  pauseAction,
  resumeAction,
  recoverAction,
  deleteAction,
  listAction,
  describeAction,
  failbackAction,
  drillAction,
  verifyAction,
  objectivesAction,
  operationsAction,
  alertsAction,
  auditAction,
  clustersAction,
  completionAction,
  versionAction,
]
