import 'server-only'
import { redactUrlsIn } from '@/lib/alerts/receiver-url'
import type { DeliveryRequest } from '@/lib/alerts/payloads'

/** One POST's outcome: ok for a 2xx answer. */
export interface AttemptResult {
  readonly ok: boolean
  readonly status?: number
  readonly error?: string
}

export interface PostOptions {
  readonly timeoutMs: number
  /** Injected by tests; the global fetch otherwise. */
  readonly fetch?: typeof fetch
}

/**
 * POSTs a delivery's JSON once. Redirects are not followed (a receiver URL says where alerts go, and a
 * redirect could lead anywhere); the answer's body is dropped. Error texts have their URLs redacted: the
 * receiver's secrets must not reach the API, the log or the page through an error message.
 */
export async function postOnce(request: DeliveryRequest, options: PostOptions): Promise<AttemptResult> {
  try {
    const { url, authorization } = basicAuthOf(request.url)
    const response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'Mirrorboard-Alerts/1', ...(authorization ? { Authorization: authorization } : {}) },
      body: JSON.stringify(request.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    })
    await response.body?.cancel().catch(() => undefined)
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status }
    return { ok: false, status: response.status, error: `answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` }
  } catch (error) {
    return { ok: false, error: redactUrlsIn(describe(error)) }
  }
}

/** fetch refuses URLs with credentials: a `user:password@` becomes the Basic authorization it stands for. */
function basicAuthOf(text: string): { url: string; authorization?: string } {
  const url = new URL(text)
  if (url.username === '' && url.password === '') return { url: text }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  url.username = ''
  url.password = ''
  return { url: url.toString(), authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` }
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time'
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ((error.cause as Error & { code?: string }).code ?? error.cause.message) : undefined
    return cause ? `${error.message}: ${cause}` : error.message
  }
  return String(error)
}

/**
 * Posts with retries: the first attempt now, then after each delay of `backoffMs` while attempts fail.
 * `onAttempt` hears every attempt (the receiver's last delivery moves with them); the promise ends with the
 * last. `cancelled()` stops further attempts (the receiver was deleted, the server closes).
 */
export async function postWithRetries(
  request: DeliveryRequest,
  options: PostOptions & {
    readonly backoffMs: readonly number[]
    readonly onAttempt: (result: AttemptResult, attempt: number, willRetry: boolean) => void
    readonly cancelled: () => boolean
    readonly sleep?: (ms: number) => Promise<void>
  },
): Promise<AttemptResult> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()))
  for (let attempt = 1; ; attempt++) {
    const result = await postOnce(request, options)
    const willRetry = !result.ok && attempt <= options.backoffMs.length && !options.cancelled()
    options.onAttempt(result, attempt, willRetry)
    if (!willRetry) return result
    await sleep(options.backoffMs[attempt - 1]!)
    if (options.cancelled()) return result
  }
}
