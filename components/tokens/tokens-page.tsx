'use client'

import { useState, type FormEvent } from 'react'
import type { ApiToken, CreatedApiToken } from '@/lib/api/tokens'
import type { GrantRole } from '@/lib/auth/grant-rules'
import { tokenRequestOf, tokenScopeText, type TokenFormValues } from '@/lib/ui/token-form'
import { useApiTokens, useCreateApiToken, useRevokeApiToken } from '@/components/data/use-api-tokens'
import { Field, Refusal, inputClass, monoInputClass } from '@/components/manage/form-controls'
import { buttonClass } from '@/components/ui/button-class'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { ErrorPanel } from '@/components/ui/error-panel'
import { Panel, Skeleton } from '@/components/ui/panel'
import { RelativeTime, useNow } from '@/components/ui/relative-time'

const ROLES: ReadonlyArray<{ value: GrantRole; label: string }> = [
  { value: 'viewer', label: 'viewer — reads' },
  { value: 'operator', label: 'operator — also pauses, fails over, drills' },
  { value: 'admin', label: 'admin — also clusters, receivers, tokens' },
]

const EMPTY_FORM: TokenFormValues = { name: '', role: 'viewer', mirrors: '', clusters: '', expiresInDays: '90' }

/** The secret of the token just created: shown this once, with a copy button; the server keeps only its hash. */
function NewSecret({ created, onDone }: { created: CreatedApiToken; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  const copy = () => {
    navigator.clipboard.writeText(created.secret).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    )
  }
  return (
    <div role="status" aria-label="New token" className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-700 dark:bg-amber-950/40">
      <p className="text-sm font-semibold text-amber-950 dark:text-amber-100">Copy the token {created.token.name} now: it is not shown again.</p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="token-secret" className="min-w-0 flex-1 rounded-md border border-amber-200 bg-white px-2.5 py-1.5 font-mono text-xs break-all text-slate-900 dark:border-amber-800 dark:bg-slate-900 dark:text-slate-100">
          {created.secret}
        </code>
        <button type="button" className={buttonClass('secondary', 'sm')} onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      {copied === 'failed' && <p className="text-xs text-red-800 dark:text-red-300">The browser did not allow copying: select the token and copy it by hand.</p>}
      <p className="text-xs text-amber-950 dark:text-amber-100">
        Give it to the machine as <code className="font-mono">Authorization: Bearer …</code>, or to the command line as <code className="font-mono">MIRRORBOARD_TOKEN</code> or{' '}
        <code className="font-mono">--token-file</code>. Mirrorboard keeps only its hash: a lost token is revoked and created again.
      </p>
      <button type="button" className={buttonClass('primary', 'sm')} onClick={onDone}>
        I have copied it
      </button>
    </div>
  )
}

function CreateTokenForm({ onCreated }: { onCreated: (created: CreatedApiToken) => void }) {
  const create = useCreateApiToken()
  const [values, setValues] = useState<TokenFormValues>(EMPTY_FORM)
  const set = (key: keyof TokenFormValues) => (value: string) => setValues((current) => ({ ...current, [key]: value }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(tokenRequestOf(values), {
      onSuccess: (created) => {
        setValues(EMPTY_FORM)
        onCreated(created)
      },
    })
  }
  return (
    <form onSubmit={submit} aria-label="Create a token" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-3">
        <Field id="token-name" label="Name" hint="Audited as token:<name>, e.g. token:ci-failover.">
          <input id="token-name" aria-describedby="token-name-hint" className={inputClass} value={values.name} onChange={(event) => set('name')(event.target.value)} required autoComplete="off" placeholder="ci-failover" />
        </Field>
        <Field id="token-role" label="Role">
          <select id="token-role" className={inputClass} value={values.role} onChange={(event) => set('role')(event.target.value)}>
            {ROLES.map((role) => (
              <option key={role.value} value={role.value}>
                {role.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="token-expiry" label="Expires in (days)" hint="1 to 730.">
          <input id="token-expiry" aria-describedby="token-expiry-hint" className={inputClass} inputMode="numeric" value={values.expiresInDays} onChange={(event) => set('expiresInDays')(event.target.value)} required />
        </Field>
        <Field id="token-mirrors" label="Mirrors (optional)" className="sm:col-span-3 lg:col-span-1" hint="Name patterns, separated by spaces: .*-to-eu-west">
          <input id="token-mirrors" aria-describedby="token-mirrors-hint" className={monoInputClass} value={values.mirrors} onChange={(event) => set('mirrors')(event.target.value)} autoComplete="off" />
        </Field>
        <Field id="token-clusters" label="Clusters (optional)" className="sm:col-span-3 lg:col-span-1" hint="Without mirrors and clusters, the role holds everywhere.">
          <input id="token-clusters" aria-describedby="token-clusters-hint" className={monoInputClass} value={values.clusters} onChange={(event) => set('clusters')(event.target.value)} autoComplete="off" />
        </Field>
      </div>
      <button type="submit" className={buttonClass('primary')} disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create token'}
      </button>
      {create.error !== null && <Refusal error={create.error} title="The token was not created" />}
    </form>
  )
}

function TokenRow({ token, now }: { token: ApiToken; now: number }) {
  const revoke = useRevokeApiToken()
  const [confirming, setConfirming] = useState(false)
  const expired = now !== 0 && token.expiresAt <= now
  return (
    <li className="space-y-1 py-3 first:pt-0 last:pb-0" aria-label={`Token ${token.name}`}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-semibold text-slate-900 dark:text-white">{token.name}</span>
        <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">{tokenScopeText(token)}</span>
        {expired && <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800 dark:bg-red-950 dark:text-red-200">expired</span>}
        <button type="button" className={`ml-auto ${buttonClass('ghost', 'sm')}`} disabled={revoke.isPending} onClick={() => setConfirming(true)}>
          Revoke
        </button>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        <span className="font-mono">{token.prefix}…</span> · created <RelativeTime at={token.createdAt} /> by {token.createdBy} · {expired ? 'expired' : 'expires'} <RelativeTime at={token.expiresAt} /> ·{' '}
        {token.lastUsedAt === null ? 'never used' : <>last used <RelativeTime at={token.lastUsedAt} /></>}
      </p>
      {revoke.error !== null && <Refusal error={revoke.error} title="The token was not revoked" />}
      <ConfirmDialog
        open={confirming}
        title={`Revoke ${token.name}?`}
        confirmLabel="Revoke token"
        destructive
        pending={revoke.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => revoke.mutate(token.name, { onSettled: () => setConfirming(false) })}
      >
        Every request with this token is refused from now on. Whatever uses it needs a new one.
      </ConfirmDialog>
    </li>
  )
}

/** /tokens: named API tokens for machines, created with a role, scopes and an expiry; the secret is shown once. */
export function TokensPage() {
  const tokens = useApiTokens()
  const now = useNow()
  const [created, setCreated] = useState<CreatedApiToken | null>(null)
  const list = tokens.data?.tokens ?? []
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API tokens</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600 dark:text-slate-300">
          Tokens for machines — CI pipelines, the command line, scripts — each with its own role, scopes and expiry. Every change one makes is audited under its name. People sign
          in through the identity provider instead.
        </p>
      </div>
      <Panel id="create-token" title="Create a token">
        <div className="space-y-4">
          {created !== null && <NewSecret created={created} onDone={() => setCreated(null)} />}
          <CreateTokenForm onCreated={setCreated} />
        </div>
      </Panel>
      <Panel id="tokens" title={tokens.data === undefined ? 'Tokens' : `Tokens (${list.length})`}>
        {tokens.error !== null && tokens.data === undefined ? (
          <ErrorPanel error={tokens.error} title="Could not load the tokens" onRetry={() => void tokens.refetch()} />
        ) : tokens.data === undefined ? (
          <Skeleton className="h-16 w-full" />
        ) : list.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">No named token yet. The two shared tokens (operator and viewer) keep working; named ones can be scoped, expire, and be revoked one by one.</p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {list.map((token) => (
              <TokenRow key={token.name} token={token} now={now} />
            ))}
          </ul>
        )}
      </Panel>
    </div>
  )
}
