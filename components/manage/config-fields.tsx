'use client'

import type { MirrorConfigKey } from '@/lib/ui/mirror-config-fields'
import { defaultText, MIRROR_CONFIG_GROUPS } from '@/lib/ui/mirror-config-fields'
import type { ConfigTexts } from '@/lib/ui/mirror-config-input'
import { controlProps, Field, inputClass, monoInputClass } from './form-controls'

/**
 * The KIP-1279 mirror settings, grouped, each with its default beside it. `mode: 'create'`: an empty box means
 * the default; `'edit'`: boxes hold the mirror's values and an emptied list is an empty list.
 */
export function ConfigFields({
  idPrefix,
  texts,
  onChange,
  issue,
  touch,
  mode,
  omit = [],
}: {
  idPrefix: string
  texts: ConfigTexts
  onChange: (key: MirrorConfigKey, text: string) => void
  issue: (path: string) => string | undefined
  touch: (path: string) => void
  mode: 'create' | 'edit'
  omit?: readonly MirrorConfigKey[]
}) {
  return (
    <div className="space-y-5">
      {MIRROR_CONFIG_GROUPS.map((group) => {
        const fields = group.fields.filter((field) => !omit.includes(field.key))
        if (fields.length === 0) return null
        return (
          <fieldset key={group.title} className="min-w-0">
            <legend className="text-sm font-semibold text-slate-900 dark:text-slate-100">{group.title}</legend>
            <div className="mt-2 grid gap-4 sm:grid-cols-2">
              {fields.map((field) => {
                const id = `${idPrefix}-${field.key.replaceAll('.', '-')}`
                const path = `config.${field.key}`
                const fieldIssue = issue(path)
                const hint = (
                  <>
                    {field.help}{' '}
                    <span className="font-medium break-words text-slate-700 dark:text-slate-300">
                      Default: <span className="font-mono">{defaultText(field)}</span>
                      {field.unit !== undefined && ` ${field.unit}`}
                    </span>
                  </>
                )
                const label = (
                  <>
                    {field.label} <span className="font-mono text-xs font-normal text-slate-500 dark:text-slate-400">{field.key}</span>
                  </>
                )
                return (
                  <Field key={field.key} id={id} label={label} hint={hint} issue={fieldIssue}>
                    {field.kind === 'integer' || field.kind === 'number' ? (
                      <span className="flex items-center gap-2">
                        <input
                          {...controlProps(id, hint, fieldIssue)}
                          inputMode={field.kind === 'number' ? 'decimal' : 'numeric'}
                          value={texts[field.key] ?? ''}
                          placeholder={mode === 'create' && field.defaultValue !== null ? String(field.defaultValue) : undefined}
                          onChange={(event) => onChange(field.key, event.target.value)}
                          onBlur={() => touch(path)}
                          className={`${inputClass} tabular-nums sm:w-40`}
                        />
                        {field.unit !== undefined && <span className="text-xs text-slate-600 dark:text-slate-400">{field.unit}</span>}
                      </span>
                    ) : (
                      <textarea
                        {...controlProps(id, hint, fieldIssue)}
                        rows={field.key === 'topic.properties.exclude' ? 4 : 2}
                        value={texts[field.key] ?? ''}
                        placeholder={mode === 'create' ? (Array.isArray(field.defaultValue) ? field.defaultValue.join('\n') : '') : 'one a line'}
                        onChange={(event) => onChange(field.key, event.target.value)}
                        onBlur={() => touch(path)}
                        spellCheck={false}
                        className={`${monoInputClass} text-xs`}
                      />
                    )}
                  </Field>
                )
              })}
            </div>
          </fieldset>
        )
      })}
    </div>
  )
}
