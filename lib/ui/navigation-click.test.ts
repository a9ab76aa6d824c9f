import { describe, expect, it } from 'vitest'
import { navigationTarget, type LinkClick, type LinkTarget } from './navigation-click'

const plain: LinkClick = { button: 0, metaKey: false, ctrlKey: false, shiftKey: false, altKey: false }
const link = (href: string | null, more: Partial<LinkTarget> = {}): LinkTarget => ({ href, target: null, download: false, ...more })
const here = 'http://127.0.0.1:3000/mirrors/dr?tab=lag'

describe('navigationTarget', () => {
  it('gives the path and query of an in-app link clicked plainly', () => {
    expect(navigationTarget(plain, link('/mirrors/dr/partitions/orders/0'), here)).toBe('/mirrors/dr/partitions/orders/0')
    expect(navigationTarget(plain, link('/audit?actor=ops#top'), here)).toBe('/audit?actor=ops')
    expect(navigationTarget(plain, link('partitions/orders/1', { target: '_self' }), 'http://127.0.0.1:3000/mirrors/dr/')).toBe('/mirrors/dr/partitions/orders/1')
  })

  it('leaves new tabs, downloads and other origins to the browser', () => {
    for (const modifier of ['metaKey', 'ctrlKey', 'shiftKey', 'altKey'] as const) expect(navigationTarget({ ...plain, [modifier]: true }, link('/audit'), here)).toBeNull()
    expect(navigationTarget({ ...plain, button: 1 }, link('/audit'), here)).toBeNull()
    expect(navigationTarget(plain, link('/audit', { target: '_blank' }), here)).toBeNull()
    expect(navigationTarget(plain, link('/api/v1/operations/1/report?format=md', { download: true }), here)).toBeNull()
    expect(navigationTarget(plain, link('https://kafka.apache.org/'), here)).toBeNull()
    expect(navigationTarget(plain, link('mailto:oncall@example.com'), here)).toBeNull()
    expect(navigationTarget(plain, link(null), here)).toBeNull()
  })

  it('does not wait for a link to where the page already is, or to a hash on it', () => {
    expect(navigationTarget(plain, link('/mirrors/dr?tab=lag'), here)).toBeNull()
    expect(navigationTarget(plain, link('#partitions'), here)).toBeNull()
  })
})
