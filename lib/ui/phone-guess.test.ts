import { describe, expect, it } from 'vitest'
import { looksLikePhone } from './phone-guess'

const PIXEL = 'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Mobile Safari/537.36'
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const ANDROID_TABLET = 'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

describe('looksLikePhone', () => {
  it('takes Chromium’s mobile client hint first, either way', () => {
    expect(looksLikePhone(DESKTOP, '?1')).toBe(true)
    expect(looksLikePhone(PIXEL, '?0')).toBe(false)
  })

  it('reads the user agent without the hint: Android phones and iPhones are phones', () => {
    expect(looksLikePhone(PIXEL, null)).toBe(true)
    expect(looksLikePhone(IPHONE, undefined)).toBe(true)
  })

  it('leaves desktops, tablets and unknown clients to the desktop layout', () => {
    expect(looksLikePhone(DESKTOP, null)).toBe(false)
    expect(looksLikePhone(IPAD, null)).toBe(false)
    expect(looksLikePhone(ANDROID_TABLET, null)).toBe(false)
    expect(looksLikePhone(null, null)).toBe(false)
  })
})
