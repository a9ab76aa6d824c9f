'use client'

import Link from 'next/link'
import { useId, useState } from 'react'
import { useCreateCluster } from '@/components/data/use-cluster-admin'
import { buttonClass } from '@/components/ui/button-class'
import { CreateClusterRequest, type Cluster } from '@/lib/api/clusters'
import { numberOrUndefined, splitList } from '@/lib/ui/form-issues'
import { controlProps, Field, inputClass, monoInputClass } from './form-controls'
import { ManageForm } from './manage-form'
import { useFormIssues } from './use-form-issues'

type Kind = 'embedded' | 'kafka'
type Mechanism = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512'

interface KafkaFields {
  bootstrapServers: string
  mechanism: Mechanism
  username: string
  tls: boolean
  verify: boolean
  ca: string
  cert: string
}

const EMPTY_KAFKA: KafkaFields = { bootstrapServers: '', mechanism: 'none', username: '', tls: false, verify: true, ca: '', cert: '' }

/** Secrets live only in these boxes until they are sent; they are cleared after every submission. */
interface Secrets {
  password: string
  key: string
}

function requestOf(kind: Kind, name: string, brokers: string, kafka: KafkaFields, secrets: Secrets): unknown {
  if (kind === 'embedded') {
    const count = numberOrUndefined(brokers)
    return { name, kind, ...(count === undefined ? {} : { brokers: count }) }
  }
  return {
    name,
    kind,
    bootstrapServers: splitList(kafka.bootstrapServers),
    ...(kafka.mechanism === 'none' ? {} : { sasl: { mechanism: kafka.mechanism, username: kafka.username, password: secrets.password } }),
    ...(kafka.tls
      ? {
          ssl: {
            rejectUnauthorized: kafka.verify,
            ...(kafka.ca.trim() === '' ? {} : { ca: kafka.ca }),
            ...(kafka.cert.trim() === '' ? {} : { cert: kafka.cert }),
            ...(secrets.key.trim() === '' ? {} : { key: secrets.key }),
          },
        }
      : {}),
  }
}

/**
 * Add a cluster: an embedded one (brokers inside this server) or a Kafka cluster (bootstrap servers, SASL, TLS).
 * The server connects before it saves, so a refusal carries the broker's reason. Secrets (SASL password, TLS
 * key) are write-only: sent once, cleared from the form whatever the answer, never read back.
 */
export function AddClusterForm({ onCreated }: { onCreated?: (cluster: Cluster) => void }) {
  const id = useId()
  const mutation = useCreateCluster()
  const [kind, setKind] = useState<Kind>('embedded')
  const [name, setName] = useState('')
  const [brokers, setBrokers] = useState('3')
  const [kafka, setKafka] = useState<KafkaFields>(EMPTY_KAFKA)
  const [secrets, setSecrets] = useState<Secrets>({ password: '', key: '' })
  const [secretsSent, setSecretsSent] = useState(false)
  const request = requestOf(kind, name, brokers, kafka, secrets)
  const form = useFormIssues(CreateClusterRequest, request)
  const setKafkaField = <K extends keyof KafkaFields>(key: K, value: KafkaFields[K]) => setKafka((previous) => ({ ...previous, [key]: value }))

  const submit = () => {
    if (mutation.isPending || !form.check()) return
    const hadSecrets = kind === 'kafka' && (secrets.password !== '' || secrets.key !== '')
    mutation.mutate(CreateClusterRequest.parse(request), {
      onSuccess: (cluster) => {
        setName('')
        setKafka(EMPTY_KAFKA)
        form.reset()
        onCreated?.(cluster)
      },
    })
    setSecrets({ password: '', key: '' })
    setSecretsSent(hadSecrets)
    // The emptied secret boxes are not the operator's mistake: their issues show again at the next attempt.
    form.reset()
  }

  const field = (path: string) => ({ issue: form.issue(path), onBlur: () => form.touch(path) })
  const nameField = field('name')
  return (
    <ManageForm
      label="Add a cluster"
      onSubmit={submit}
      actionsAt="start"
      actions={
        <button type="submit" disabled={mutation.isPending} className={buttonClass('primary')}>
          {mutation.isPending ? (kind === 'kafka' ? 'Connecting…' : 'Creating…') : kind === 'kafka' ? 'Check the connection and add' : 'Add the cluster'}
        </button>
      }
      refusal={mutation.isError ? { error: mutation.error, title: 'The server refused the cluster' } : null}
      after={
        mutation.isError &&
        secretsSent && <p className="text-xs text-slate-600 dark:text-slate-400">The password and key were sent once and cleared from the form; type them again to retry.</p>
      }
      done={
        mutation.isSuccess && (
          <>
            Added {mutation.data.kind} cluster{' '}
            <Link prefetch={false} href={`/clusters/${encodeURIComponent(mutation.data.name)}`} className="font-mono font-semibold underline underline-offset-2">
              {mutation.data.name}
            </Link>{' '}
            with {mutation.data.brokers.length} {mutation.data.brokers.length === 1 ? 'broker' : 'brokers'}.
          </>
        )
      }
    >
      <fieldset>
        <legend className="text-sm font-medium text-slate-800 dark:text-slate-200">Kind</legend>
        <div className="mt-1 flex flex-wrap gap-2">
          {(
            [
              ['embedded', 'Embedded', 'brokers run inside this server; nothing to install'],
              ['kafka', 'Kafka', 'an Apache Kafka cluster reached over the network'],
            ] as const
          ).map(([value, label, detail]) => (
            <label
              key={value}
              className="flex min-w-0 flex-1 cursor-pointer items-start gap-2 rounded-md border border-slate-300 px-3 py-2 text-sm has-checked:border-indigo-600 has-checked:bg-indigo-50 has-focus-visible:outline-2 has-focus-visible:outline-indigo-500 sm:flex-none dark:border-slate-600 dark:has-checked:border-indigo-400 dark:has-checked:bg-indigo-950"
            >
              <input type="radio" name={`${id}-kind`} value={value} checked={kind === value} onChange={() => setKind(value)} className="mt-0.5 accent-indigo-600" />
              <span>
                <span className="font-medium">{label}</span>
                <span className="block text-xs text-slate-600 dark:text-slate-400">{detail}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>

      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-name`} label="Name" hint="Letters, digits, “.”, “_” and “-”; how pages and mirrors name this cluster." issue={nameField.issue}>
          <input {...controlProps(`${id}-name`, true, nameField.issue)} value={name} onChange={(event) => setName(event.target.value)} onBlur={nameField.onBlur} autoComplete="off" spellCheck={false} className={monoInputClass} />
        </Field>
        {kind === 'embedded' && (
          <Field id={`${id}-brokers`} label="Brokers" hint="1 to 9; 3 by default (replication factor 3 needs 3)." issue={form.issue('brokers')}>
            <input
              {...controlProps(`${id}-brokers`, true, form.issue('brokers'))}
              inputMode="numeric"
              value={brokers}
              onChange={(event) => setBrokers(event.target.value)}
              onBlur={() => form.touch('brokers')}
              className={`${inputClass} tabular-nums sm:w-32`}
            />
          </Field>
        )}
      </div>

      {kind === 'kafka' && (
        <KafkaFieldsSection id={id} kafka={kafka} secrets={secrets} setKafkaField={setKafkaField} setSecrets={setSecrets} issue={form.issue} touch={form.touch} />
      )}

    </ManageForm>
  )
}

function KafkaFieldsSection({
  id,
  kafka,
  secrets,
  setKafkaField,
  setSecrets,
  issue,
  touch,
}: {
  id: string
  kafka: KafkaFields
  secrets: Secrets
  setKafkaField: <K extends keyof KafkaFields>(key: K, value: KafkaFields[K]) => void
  setSecrets: (next: (previous: Secrets) => Secrets) => void
  issue: (path: string) => string | undefined
  touch: (path: string) => void
}) {
  return (
    <div className="space-y-4">
      <Field id={`${id}-bootstrap`} label="Bootstrap servers" hint="host:port, one a line or comma-separated." issue={issue('bootstrapServers')}>
        <textarea
          {...controlProps(`${id}-bootstrap`, true, issue('bootstrapServers'))}
          rows={2}
          value={kafka.bootstrapServers}
          onChange={(event) => setKafkaField('bootstrapServers', event.target.value)}
          onBlur={() => touch('bootstrapServers')}
          spellCheck={false}
          placeholder="kafka-1.internal:9092"
          className={monoInputClass}
        />
      </Field>
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <legend className="px-1 text-sm font-medium text-slate-800 dark:text-slate-200">SASL authentication</legend>
        <Field id={`${id}-mechanism`} label="Mechanism">
          <select id={`${id}-mechanism`} value={kafka.mechanism} onChange={(event) => setKafkaField('mechanism', event.target.value as Mechanism)} className={`${inputClass} sm:w-56`}>
            <option value="none">None</option>
            <option value="plain">PLAIN</option>
            <option value="scram-sha-256">SCRAM-SHA-256</option>
            <option value="scram-sha-512">SCRAM-SHA-512</option>
          </select>
        </Field>
        {kafka.mechanism !== 'none' && (
          <div className="grid gap-3 sm:grid-cols-2">
            <Field id={`${id}-username`} label="Username" issue={issue('sasl.username')}>
              <input
                {...controlProps(`${id}-username`, undefined, issue('sasl.username'))}
                value={kafka.username}
                onChange={(event) => setKafkaField('username', event.target.value)}
                onBlur={() => touch('sasl.username')}
                autoComplete="off"
                className={inputClass}
              />
            </Field>
            <Field id={`${id}-password`} label="Password" hint="Write-only: sent once, never shown again." issue={issue('sasl.password')}>
              <input
                {...controlProps(`${id}-password`, true, issue('sasl.password'))}
                type="password"
                value={secrets.password}
                onChange={(event) => {
                  const password = event.target.value
                  setSecrets((previous) => ({ ...previous, password }))
                }}
                onBlur={() => touch('sasl.password')}
                autoComplete="new-password"
                className={inputClass}
              />
            </Field>
          </div>
        )}
      </fieldset>
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <legend className="px-1 text-sm font-medium text-slate-800 dark:text-slate-200">TLS</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={kafka.tls} onChange={(event) => setKafkaField('tls', event.target.checked)} className="accent-indigo-600" />
          Connect over TLS
        </label>
        {kafka.tls && (
          <>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={kafka.verify} onChange={(event) => setKafkaField('verify', event.target.checked)} className="accent-indigo-600" />
              Verify the brokers’ certificates
            </label>
            <Field id={`${id}-ca`} label="CA certificate (PEM)" hint="The CA that signed the brokers’ certificates; the system’s CAs when empty." issue={issue('ssl.ca')}>
              <textarea {...controlProps(`${id}-ca`, true, issue('ssl.ca'))} rows={3} value={kafka.ca} onChange={(event) => setKafkaField('ca', event.target.value)} spellCheck={false} placeholder="-----BEGIN CERTIFICATE-----" className={`${monoInputClass} text-xs`} />
            </Field>
            <div className="grid gap-3 sm:grid-cols-2">
              <Field id={`${id}-cert`} label="Client certificate (PEM)" hint="For mutual TLS." issue={issue('ssl.cert')}>
                <textarea {...controlProps(`${id}-cert`, true, issue('ssl.cert'))} rows={3} value={kafka.cert} onChange={(event) => setKafkaField('cert', event.target.value)} spellCheck={false} className={`${monoInputClass} text-xs`} />
              </Field>
              <Field id={`${id}-key`} label="Client key (PEM)" hint="Write-only: sent once, never shown again." issue={issue('ssl.key')}>
                <textarea
                  {...controlProps(`${id}-key`, true, issue('ssl.key'))}
                  rows={3}
                  value={secrets.key}
                  onChange={(event) => {
                    const key = event.target.value
                    setSecrets((previous) => ({ ...previous, key }))
                  }}
                  spellCheck={false}
                  autoComplete="off"
                  className={`${monoInputClass} text-xs [-webkit-text-security:disc]`}
                />
              </Field>
            </div>
          </>
        )}
      </fieldset>
    </div>
  )
}
