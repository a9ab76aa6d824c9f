import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeFilesDurablyAsync } from './durable-file'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('writeFilesDurablyAsync (the batch a log close writes)', () => {
  it('replaces every file of the batch and leaves no temp file', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'durable-'))
    await writeFile(path.join(dir, 'a'), 'old a')
    await writeFilesDurablyAsync([
      { file: path.join(dir, 'a'), data: 'new a' },
      { file: path.join(dir, 'b'), data: new Uint8Array([1, 2, 3]) },
    ])
    expect(await readFile(path.join(dir, 'a'), 'utf8')).toBe('new a')
    expect([...(await readFile(path.join(dir, 'b')))]).toEqual([1, 2, 3])
    expect((await readdir(dir)).sort()).toEqual(['a', 'b'])
  })

  it('refuses a batch over two directories before writing anything', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'durable-'))
    expect(() => writeFilesDurablyAsync([{ file: path.join(dir, 'a'), data: 'a' }, { file: path.join(dir, 'sub', 'b'), data: 'b' }])).toThrow(/share a directory/)
    expect(await readdir(dir)).toEqual([])
  })
})
