import { describe, expect, it } from 'vitest'
import { deriveKey, isSealedBox, open, seal, WrongSecretKeyError } from './secret-box'

describe('secret box', () => {
  const key = deriveKey('a-long-and-random-secret-key')

  it('opens what it sealed, and the box shows nothing of the secret', () => {
    const box = seal('{"password":"hunter2-s3cret"}', key, 'cluster/dr')
    expect(isSealedBox(box)).toBe(true)
    expect(JSON.stringify(box)).not.toContain('hunter2')
    expect(open(box, deriveKey('a-long-and-random-secret-key'), 'cluster/dr')).toBe('{"password":"hunter2-s3cret"}')
    expect(seal('same', key, 'c').iv).not.toBe(seal('same', key, 'c').iv)
  })

  it('refuses another key, another record and an altered box with WRONG_SECRET_KEY', () => {
    const box = seal('secret', key, 'cluster/dr')
    const refusal = (run: () => string) => {
      try {
        run()
      } catch (error) {
        return error instanceof WrongSecretKeyError ? error.code : String(error)
      }
      return 'opened'
    }
    expect(refusal(() => open(box, deriveKey('another-key-entirely'), 'cluster/dr'))).toBe('WRONG_SECRET_KEY')
    expect(refusal(() => open(box, key, 'cluster/prod'))).toBe('WRONG_SECRET_KEY')
    const altered = { ...box, data: Buffer.from('x' + Buffer.from(box.data, 'base64').toString('latin1'), 'latin1').toString('base64') }
    expect(refusal(() => open(altered, key, 'cluster/dr'))).toBe('WRONG_SECRET_KEY')
  })
})
