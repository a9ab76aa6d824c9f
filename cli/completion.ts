import { GLOBAL_OPTIONS, type Action } from './action'
import { longFlag, takesValue, type OptionSpec } from './flags'
import { PROGRAM } from './program'

/**
 * Shell completion scripts for bash and zsh, generated from the actions' declared options (action.ts), so a new
 * flag completes without touching this file. First the action flags; once one is on the line, that action's
 * options and the global ones; after an option with choices, its choices; after a file option, file names.
 *
 *   bash: eval "$(mirrorboard --completion bash)"   (or save it under /etc/bash_completion.d/mirrorboard)
 *   zsh:  eval "$(mirrorboard --completion zsh)"    (after compinit; or save it as _mirrorboard in $fpath)
 */

export const SHELLS = ['bash', 'zsh'] as const
export type Shell = (typeof SHELLS)[number]

/** Values an option's argument completes to: its choices, files, or nothing to offer. */
function valuesOf(spec: OptionSpec): { kind: 'choices'; values: readonly string[] } | { kind: 'files' } | { kind: 'none' } {
  if (spec.choices !== undefined) return { kind: 'choices', values: spec.choices }
  if (spec.complete === 'file') return { kind: 'files' }
  if (longFlag(spec.flags) === '--clusters') return { kind: 'choices', values: ['list', 'add', 'remove'] }
  if (longFlag(spec.flags) === '--completion') return { kind: 'choices', values: SHELLS }
  return { kind: 'none' }
}

function optionsOf(action: Action): OptionSpec[] {
  return [{ flags: action.flag, description: action.summary }, ...action.options, ...GLOBAL_OPTIONS, { flags: '-h, --help', description: 'this help' }]
}

export function completionScript(shell: Shell, actions: readonly Action[]): string {
  return shell === 'bash' ? bashScript(actions) : zshScript(actions)
}

function bashScript(actions: readonly Action[]): string {
  const actionFlags = actions.map((action) => longFlag(action.flag))
  const valueCases = new Map<string, string>()
  for (const action of actions) {
    for (const spec of optionsOf(action)) {
      if (!takesValue(spec.flags)) continue
      const values = valuesOf(spec)
      const flag = longFlag(spec.flags)
      const reply = values.kind === 'choices' ? `COMPREPLY=($(compgen -W '${values.values.join(' ')}' -- "$cur"))` : values.kind === 'files' ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=()'
      valueCases.set(flag, `      ${flag}) ${reply}; return ;;`)
    }
  }
  const optionCases = actions.map((action) => `      ${longFlag(action.flag)}) opts='${optionsOf(action).map((spec) => longFlag(spec.flags)).join(' ')}' ;;`)
  return `# ${PROGRAM} completion for bash: eval "$(${PROGRAM} --completion bash)"
_${PROGRAM}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" action="" word opts
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in
      ${actionFlags.join('|')}) action="$word" ;;
    esac
  done
  case "$prev" in
${[...valueCases.values()].join('\n')}
  esac
  case "$action" in
      '') opts='${actionFlags.join(' ')} --help' ;;
${optionCases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _${PROGRAM} ${PROGRAM}
`
}

/** Text inside a single-quoted zsh word, as an _arguments explanation: brackets would end it early. */
function zshText(text: string): string {
  return text.replace(/\[/g, '(').replace(/]/g, ')').replace(/'/g, "'\\''").replace(/\s+/g, ' ').trim()
}

function zshSpec(spec: OptionSpec): string {
  const flag = longFlag(spec.flags)
  const description = zshText(spec.description)
  if (!takesValue(spec.flags)) return `'${flag}[${description}]'`
  const values = valuesOf(spec)
  const argument = values.kind === 'choices' ? `(${values.values.join(' ')})` : values.kind === 'files' ? '_files' : ' '
  // `::` marks a value that may be left out (--clusters [action]).
  return `'${flag}[${description}]${spec.flags.includes('[') ? '::' : ':'}value:${argument}'`
}

function zshScript(actions: readonly Action[]): string {
  const described = actions.map((action) => `    '${longFlag(action.flag)}:${zshText(action.summary)}'`)
  const cases = actions.map(
    (action) => `    (${longFlag(action.flag)})\n      _arguments -s \\\n${optionsOf(action)
      .filter((spec) => longFlag(spec.flags) !== '--help')
      .map((spec) => `        ${zshSpec(spec)}`)
      .join(' \\\n')} \\\n        '(- *)'{-h,--help}'[this help]' ;;`,
  )
  return `#compdef ${PROGRAM}
# ${PROGRAM} completion for zsh: eval "$(${PROGRAM} --completion zsh)" after compinit
_${PROGRAM}() {
  local -a actions
  actions=(
${described.join('\n')}
  )
  local action="" word
  for word in \${words[2,CURRENT-1]}; do
    case $word in
      (${actions.map((action) => longFlag(action.flag)).join('|')}) action=$word ;;
    esac
  done
  case $action in
    ('')
      _describe -t actions '${PROGRAM} action' actions ;;
${cases.join('\n')}
  esac
}
if (( $+functions[compdef] )); then compdef _${PROGRAM} ${PROGRAM}; fi
`
}
