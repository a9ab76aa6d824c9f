import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ALERT_RULE_NAMES, ALERT_RULES } from '@/lib/alerts/rules'
import { RULES_FILE, rulesFileText } from './rules-file'
import { RULES_TESTS_FILE, rulesTestsText, testedAlerts } from './rules-tests'

const root = path.resolve(__dirname, '..', '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** promtool and amtool come with Debian's prometheus and prometheus-alertmanager (scripts/lib/ensure.sh installs them). */
function tool(name: string, args: string[], cwd = root): string {
  const result = spawnSync(name, args, { cwd, encoding: 'utf8' })
  if (result.error) throw new Error(`${name} is missing: npm test installs it (ensure_prometheus in scripts/lib/ensure.sh), or apt-get install prometheus prometheus-alertmanager`)
  expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toMatchObject({ status: 0 })
  return `${result.stdout}${result.stderr}`
}

describe('the shipped monitoring files', () => {
  it('rules.yml and its promtool tests are what the rules table generates (npx tsx scripts/alerts/write-rules.ts)', () => {
    expect(read(RULES_FILE)).toBe(rulesFileText())
    expect(read(RULES_TESTS_FILE)).toBe(rulesTestsText())
  })

  it('hold every rule of the table, each with a runbook section and a promtool test that sees it fire', () => {
    const groups = (parse(read(RULES_FILE)) as { groups: Array<{ rules: Array<{ alert?: string }> }> }).groups
    expect(groups.flatMap((group) => group.rules.flatMap((rule) => (rule.alert ? [rule.alert] : [])))).toEqual([...ALERT_RULE_NAMES])
    expect([...testedAlerts()].sort()).toEqual([...ALERT_RULE_NAMES].sort())
    const runbook = read('docs/runbook.md')
    for (const rule of ALERT_RULES) expect(runbook).toContain(`### ${rule.name}\n`)
  })

  it('pass promtool check rules and promtool test rules', () => {
    expect(tool('promtool', ['check', 'rules', RULES_FILE])).toContain('SUCCESS')
    expect(tool('promtool', ['test', 'rules', RULES_TESTS_FILE])).toContain('SUCCESS')
    expect(tool('promtool', ['check', 'config', '--syntax-only', 'prometheus.yml'], path.join(root, 'deploy/prometheus'))).toContain('SUCCESS')
  })

  it('a rules file that breaks a rule fails its promtool test (the tests can fail)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-rules-'))
    try {
      writeFileSync(path.join(dir, 'rules.yml'), read(RULES_FILE).replace('mirrorboard_partitions{state="FAILED"} > 0', 'mirrorboard_partitions{state="FAILED"} > 5'))
      writeFileSync(path.join(dir, 'tests.yml'), read(RULES_TESTS_FILE))
      const result = spawnSync('promtool', ['test', 'rules', 'tests.yml'], { cwd: dir, encoding: 'utf8' })
      expect(result.status).not.toBe(0)
      expect(`${result.stdout}${result.stderr}`).toContain('alertname: PartitionFailed')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the Alertmanager example passes amtool check-config', () => {
    expect(tool('amtool', ['check-config', 'deploy/alertmanager/alertmanager.yml'])).toContain('SUCCESS')
  })

  it("the Grafana dashboard's queries are PromQL that Prometheus parses, over metric names the server exposes or the rules record", () => {
    const dashboard = JSON.parse(read('deploy/grafana/mirrorboard.json')) as { uid: string; panels: Array<{ title: string; targets: Array<{ expr: string }> }> }
    expect(dashboard.uid).toBe('mirrorboard')
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr.replaceAll('$mirror', '.*')))
    expect(queries.length).toBeGreaterThan(10)
    // promtool parses expressions only as rules: each query becomes a recording rule of a throwaway file.
    const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-dashboard-'))
    try {
      const rules = { groups: [{ name: 'dashboard', rules: queries.map((expr, index) => ({ record: `dashboard:query_${index}`, expr })) }] }
      writeFileSync(path.join(dir, 'rules.json'), JSON.stringify(rules))
      expect(execFileSync('promtool', ['check', 'rules', path.join(dir, 'rules.json')], { encoding: 'utf8' })).toContain(`SUCCESS: ${queries.length} rules found`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
