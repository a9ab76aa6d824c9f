import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ApiError, API_ERROR_CODES } from '@/lib/api/errors'
import { ClusterError } from '@/server/cluster/errors'
import { StorageError } from '@/lib/log/errors'
import { problem, STATUS_BY_CODE, toProblem, validationError } from './problem'

describe('toProblem', () => {
  it('gives every API error code its contract status', () => {
    const contract = {
      VALIDATION_FAILED: 400,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      INVALID_MIRROR_STATE: 409,
      CONFIRMATION_REQUIRED: 409,
      CONFLICT: 409,
      TOPIC_READ_ONLY: 409,
      SOURCE_UNAVAILABLE: 503,
      PRECONDITION_FAILED: 412,
    } as const
    for (const [code, status] of Object.entries(contract)) {
      const result = toProblem(new ApiError(code as keyof typeof contract, `msg ${code}`))
      expect(result).toEqual({ status, body: { error: { code, message: `msg ${code}` } } })
    }
  })

  it('has a status for every code, and only INTERNAL-like codes are 5xx besides availability', () => {
    for (const code of API_ERROR_CODES) expect(STATUS_BY_CODE[code]).toBeGreaterThanOrEqual(400)
    const serverSide = API_ERROR_CODES.filter((code) => STATUS_BY_CODE[code] >= 500).sort()
    expect(serverSide).toEqual(
      [
        'CORRUPT_RECORD',
        'INTERNAL',
        'KAFKA_STORAGE_ERROR',
        'LEADER_NOT_AVAILABLE',
        'LOG_CLOSED',
        'LOG_TRUNCATED',
        'MIRROR_OWNER_UNAVAILABLE',
        'CONTROL_CLUSTER_UNAVAILABLE',
        'NOT_ENOUGH_REPLICAS',
        'NOT_LEADER_OR_FOLLOWER',
        'REQUEST_TIMED_OUT',
        'SERVER_BUSY',
        'SOURCE_UNAVAILABLE',
      ].sort(),
    )
  })

  it('keeps the code of producer and storage errors and answers 4xx', () => {
    expect(toProblem(new ClusterError('OUT_OF_ORDER_SEQUENCE', 'seq')).status).toBe(409)
    expect(toProblem(new ClusterError('INVALID_PRODUCER_EPOCH', 'fenced')).body.error.code).toBe('INVALID_PRODUCER_EPOCH')
    expect(toProblem(new StorageError('OFFSET_OUT_OF_RANGE', 'beyond')).status).toBe(416)
    expect(toProblem(new ClusterError('TOPIC_READ_ONLY', 'mirror')).status).toBe(409)
    expect(toProblem(new ClusterError('RECORD_TOO_LARGE', 'big')).status).toBe(413)
  })

  it('passes details through', () => {
    const result = toProblem(new ClusterError('NOT_FOUND', 'no topic x', { details: { topic: 'x' } }))
    expect(result.body.error).toEqual({ code: 'NOT_FOUND', message: 'no topic x', details: { topic: 'x' } })
  })

  it('turns a zod error into VALIDATION_FAILED naming the field', () => {
    const parsed = z.object({ partitions: z.number() }).safeParse({ partitions: 'three' })
    expect(parsed.success).toBe(false)
    if (parsed.success) return
    const result = toProblem(parsed.error)
    expect(result.status).toBe(400)
    expect(result.body.error.code).toBe('VALIDATION_FAILED')
    expect(result.body.error.message).toMatch(/^partitions: /)
    const prefixed = validationError(parsed.error, 'body')
    expect(prefixed.message).toMatch(/^body\.partitions: /)
    expect(prefixed.details).toEqual({ issues: [{ path: 'body.partitions', message: expect.any(String) }] })
  })

  it('answers INTERNAL without the message for anything unexpected, and logs it', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      for (const error of [new Error('secret path /etc/x'), new TypeError('x is undefined'), 'a string', { code: 'ENOENT' }, new ClusterError('INTERNAL', 'bug')]) {
        const result = toProblem(error)
        expect(result.status).toBe(500)
        expect(result.body.error.code).toBe('INTERNAL')
        expect(result.body.error.message).not.toContain('secret')
        expect(result.body.error.details).toEqual({ reference: expect.stringMatching(/^[0-9a-f-]{36}$/) })
      }
      expect(write).toHaveBeenCalledTimes(5)
      expect(String(write.mock.calls[0]?.[0])).toContain('secret path /etc/x')
    } finally {
      write.mockRestore()
    }
  })

  it('adds Retry-After to availability errors', async () => {
    const response = problem(new ClusterError('NOT_ENOUGH_REPLICAS', 'isr too small'))
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(await response.json()).toEqual({ error: { code: 'NOT_ENOUGH_REPLICAS', message: 'isr too small' } })
  })

  it('answers a limit with 429 and the Retry-After its details give', async () => {
    const response = problem(new ApiError('TOO_MANY_REQUESTS', 'slow down', { details: { retryAfterSeconds: 7.2 } }))
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('8')
    expect(problem(new ApiError('SERVER_BUSY', 'full')).headers.get('retry-after')).toBe('1')
  })
})
