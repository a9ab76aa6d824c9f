import { describe, expect, it } from 'vitest'
import { auditVerdict } from './dependency-audit'

const report = (vulnerabilities: Record<string, unknown>, counts: Record<string, number>) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0, ...counts } } })

describe('auditVerdict (issue #41 item 7)', () => {
  it('fails on a high or critical advisory, naming the package and the advisory', () => {
    const verdict = auditVerdict(
      report(
        {
          next: { name: 'next', severity: 'critical', via: [{ title: 'Authorization bypass in middleware', url: 'https://github.com/advisories/GHSA-f82v-jwr5-mffw', severity: 'critical' }] },
          postcss: { name: 'postcss', severity: 'moderate', via: [{ title: 'line return parsing', severity: 'moderate' }] },
          'next-intl': { name: 'next-intl', severity: 'high', via: ['next'] },
        },
        { critical: 1, high: 1, moderate: 1 },
      ),
    )
    expect(verdict).toEqual({
      kind: 'vulnerable',
      findings: [
        { name: 'next', severity: 'critical', advisories: ['Authorization bypass in middleware (https://github.com/advisories/GHSA-f82v-jwr5-mffw)'] },
        { name: 'next-intl', severity: 'high', advisories: ['via next'] },
      ],
    })
  })

  it('passes with only lower advisories, counting them', () => {
    expect(auditVerdict(report({ postcss: { name: 'postcss', severity: 'moderate', via: [] } }, { moderate: 1, low: 2 }))).toEqual({ kind: 'clean', lower: 3 })
  })

  it('tells an audit endpoint that refused apart from a clean report', () => {
    const refused = JSON.stringify({ message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk', statusCode: 405, error: { summary: '' } })
    expect(auditVerdict(refused)).toEqual({ kind: 'unavailable', reason: expect.stringContaining('405') })
    expect(auditVerdict('npm error network')).toMatchObject({ kind: 'unavailable' })
  })
})
