import { describe, expect, it } from 'vitest'
import { ErrorBody } from './error-body'
import { isErrorBody } from './errors'

const bodies: unknown[] = [
  { error: { code: 'TOPIC_READ_ONLY', message: 'mirror topic' } },
  { error: { code: 'FORBIDDEN', message: 'no', details: { mirror: 'a', nested: { x: [1] } } } },
  { error: { code: 'FORBIDDEN', message: 'no', details: undefined } },
  { error: { code: 'FORBIDDEN', message: 'no' }, extra: 1 },
  { error: { code: 'FORBIDDEN', message: 'no', extra: true } },
  { error: { code: 'NOT_A_CODE', message: 'x' } },
  { error: { code: 'FORBIDDEN' } },
  { error: { code: 'FORBIDDEN', message: 3 } },
  { error: { code: 'FORBIDDEN', message: 'no', details: null } },
  { error: { code: 'FORBIDDEN', message: 'no', details: ['a'] } },
  { error: { code: 'FORBIDDEN', message: 'no', details: 'text' } },
  { error: null },
  { error: [] },
  { error: 'FORBIDDEN' },
  [],
  null,
  undefined,
  '<html>bad gateway</html>',
  42,
]

describe('isErrorBody (the browser reads error bodies without zod)', () => {
  it.each(bodies.map((body) => [JSON.stringify(body) ?? String(body), body]))('answers as the server\'s schema does for %s', (_, body) => {
    expect(isErrorBody(body)).toBe(ErrorBody.safeParse(body).success)
  })

})
