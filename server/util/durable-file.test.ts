import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeFileDurablyAsync, writeFilesDurablyAsync } from './durable-file'

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
    const root = (dir = await mkdtemp(path.join(tmpdir(), 'durable-')))
    expect(() => writeFilesDurablyAsync([{ file: path.join(root, 'a'), data: 'a' }, { file: path.join(root, 'sub', 'b'), data: 'b' }])).toThrow(/share a directory/)
    expect(await readdir(root)).toEqual([])
  })
})

describe('the two lanes of async durable writes', () => {
  it('a foreground write does not queue behind a flood of log checkpoints', async () => {
    const root = (dir = await mkdtemp(path.join(tmpdir(), 'durable-')))
    let checkpointsDone = 0
    const checkpoints = Array.from({ length: 300 }, (_, index) =>
      writeFileDurablyAsync(path.join(root, `hw-${index}`), String(index), { logWrite: true }).then(() => {
        checkpointsDone += 1
      }),
    )
    await writeFileDurablyAsync(path.join(root, 'operation.json'), '{}')
    // In one lane it would have waited for ~284 of them (16 at a time, first come first served).
    expect(checkpointsDone).toBeLessThan(150)
    await Promise.all(checkpoints)
    expect(await readFile(path.join(root, 'hw-299'), 'utf8')).toBe('299')
  })
})
