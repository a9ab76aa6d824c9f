import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The README and docs/ link only to files inside the repository (a clone is all a reader has), and links to
 * a heading of a Markdown file name a heading that exists there.
 */

const root = path.resolve(__dirname, '..', '..')

interface Link {
  file: string
  line: number
  target: string
}

/** Markdown links and images outside code: `[text](target)`, `![alt](target)`, `[text]: target`. */
function linksOf(markdown: string, file: string): Link[] {
  const links: Link[] = []
  let fenced = false
  for (const [index, raw] of markdown.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced
      continue
    }
    if (fenced) continue
    const line = raw.replace(/`[^`]*`/g, '')
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line: index + 1, target: match[1]! })
    const reference = /^\s*\[[^\]]+\]:\s*(\S+)/.exec(line)
    if (reference) links.push({ file, line: index + 1, target: reference[1]! })
  }
  return links
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading) anchors.add(slugOf(heading[1]!))
  }
  return anchors
}

/** What is wrong with a link, or null. External links (a scheme) are not followed. */
function problemOf(link: Link, repositoryRoot: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return null
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined]
  const resolved = pathPart === '' ? link.file : path.resolve(path.dirname(link.file), decodeURIComponent(pathPart))
  const relative = path.relative(repositoryRoot, resolved)
  if (relative.startsWith('..') || path.isAbsolute(relative)) return `${link.target} leaves the repository`
  if (!existsSync(resolved)) return `${link.target}: no such file`
  if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md') && statSync(resolved).isFile()) {
    if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) return `${link.target}: no heading #${anchor} in ${path.relative(repositoryRoot, resolved)}`
  }
  return null
}

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(root, 'docs', name))
  return [path.join(root, 'README.md'), ...docs]
}

describe('links in README.md and docs/', () => {
  it('resolve to files (and headings) inside the repository', () => {
    const files = markdownFiles()
    expect(files.map((file) => path.relative(root, file))).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/api.md', 'docs/runbook.md', 'docs/demo.md', 'docs/kip-1279.md']))
    const links = files.flatMap((file) => linksOf(readFileSync(file, 'utf8'), file))
    expect(links.length).toBeGreaterThan(20)
    const problems = links.map((link) => ({ link, problem: problemOf(link, root) })).filter((entry) => entry.problem !== null)
    expect(problems.map(({ link, problem }) => `${path.relative(root, link.file)}:${link.line} ${problem}`)).toEqual([])
  })

  it('are found outside code and judged by file, by heading and by leaving the repository', () => {
    const file = path.join(root, 'README.md')
    const markdown = ['[ok](docs/api.md#errors) ![img](docs/none.png) `[code](nowhere.md)`', '```', '[fenced](nowhere.md)', '```', '[up](../shared/DESIGN.md) [web](https://example.com) [bad anchor](docs/api.md#no-such-heading)', '[ref]: docs/runbook.md'].join('\n')
    const links = linksOf(markdown, file)
    expect(links.map((link) => link.target)).toEqual(['docs/api.md#errors', 'docs/none.png', '../shared/DESIGN.md', 'https://example.com', 'docs/api.md#no-such-heading', 'docs/runbook.md'])
    expect(links.map((link) => problemOf(link, root))).toEqual([
      null,
      'docs/none.png: no such file',
      '../shared/DESIGN.md leaves the repository',
      null,
      'docs/api.md#no-such-heading: no heading #no-such-heading in docs/api.md',
      null,
    ])
    expect(slugOf('A fetch, from the source to the destination log')).toBe('a-fetch-from-the-source-to-the-destination-log')
    expect(slugOf('STOPPING (failover)')).toBe('stopping-failover')
  })
})
