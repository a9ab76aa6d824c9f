import { describe, expect, it } from 'vitest'
import { readHaConfig } from '@/server/ha/ha-config'
import { listenAddress } from './listen-address'

const ha = { MIRRORBOARD_CONTROL_BOOTSTRAP: 'k1:9092', MIRRORBOARD_SECRET_KEY: 'a-long-enough-secret' }

describe('listenAddress', () => {
  it('takes -H/-p over the environment and writes them back as HOST and PORT, so the advertised URL follows the flags', () => {
    const env: Record<string, string | undefined> = { ...ha, PORT: '3000' }
    expect(listenAddress(['-H', '10.0.0.7', '-p', '4000'], env)).toEqual({ hostname: '10.0.0.7', port: 4000 })
    expect(env.HOST).toBe('10.0.0.7')
    expect(env.PORT).toBe('4000')
    expect(readHaConfig(env)?.advertisedUrl).toBe('http://10.0.0.7:4000')
  })

  it('reads the long flags, and the environment when there are no flags', () => {
    const env: Record<string, string | undefined> = { ...ha }
    expect(listenAddress(['--hostname', '127.0.0.2', '--port', '4100'], env)).toEqual({ hostname: '127.0.0.2', port: 4100 })
    expect(readHaConfig(env)?.advertisedUrl).toBe('http://127.0.0.2:4100')
    const plain: Record<string, string | undefined> = { ...ha, HOSTNAME: '127.0.0.3', PORT: '4200' }
    expect(listenAddress([], plain)).toEqual({ hostname: '127.0.0.3', port: 4200 })
    expect(readHaConfig(plain)?.advertisedUrl).toBe('http://127.0.0.3:4200')
    const keeps: Record<string, string | undefined> = { HOST: '10.1.1.1' }
    expect(listenAddress([], keeps)).toEqual({ hostname: '0.0.0.0', port: 3000 })
    expect(keeps.HOST).toBe('10.1.1.1')
  })

  it('refuses a port that is not one', () => {
    expect(() => listenAddress(['-p', 'http'], {})).toThrow('invalid port http')
    expect(() => listenAddress([], { PORT: '70000' })).toThrow('invalid port 70000')
  })
})
