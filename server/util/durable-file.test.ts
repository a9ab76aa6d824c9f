import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { skipSyncsUnder, syncsSkipped, writeFileDurablyAsync, writeFilesDurablyAsync } from './durable-file'

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

describe('directories nobody needs after a crash (a drill\'s sandbox)', () => {
  it('cover what lies under them until released, not a sibling that shares their name\'s start', () => {
    const root = path.join(tmpdir(), 'sandbox-1')
    const release = skipSyncsUnder(root)
    expect([root, path.join(root, 'broker-1', 'orders-0', 'leader-epoch-checkpoint')].map(syncsSkipped)).toEqual([true, true])
    expect([path.join(tmpdir(), 'sandbox-10', 'metadata.json'), tmpdir()].map(syncsSkipped)).toEqual([false, false])
    release()
    expect(syncsSkipped(path.join(root, 'metadata.json'))).toBe(false)
  })

  it("write their batches without queueing behind production's flood of log writes, and the files read back", async () => {
    const root = (dir = await mkdtemp(path.join(tmpdir(), 'durable-')))
    const sandbox = path.join(root, 'sandbox')
    await mkdir(sandbox)
    const release = skipSyncsUnder(sandbox)
    try {
      let floodDone = 0
      const flood = Array.from({ length: 300 }, (_, index) =>
        writeFilesDurablyAsync([{ file: path.join(root, `hw-${index}`), data: String(index) }]).then(() => {
          floodDone += 1
        }),
      )
      await writeFilesDurablyAsync([{ file: path.join(sandbox, 'a'), data: 'sandbox a' }, { file: path.join(sandbox, 'b'), data: 'sandbox b' }])
      // In the logs' lane it would have waited for ~284 of them (16 at a time, first come first served).
      expect(floodDone).toBeLessThan(150)
      expect(await readFile(path.join(sandbox, 'b'), 'utf8')).toBe('sandbox b')
      expect((await readdir(sandbox)).sort()).toEqual(['a', 'b'])
      await Promise.all(flood)
    } finally {
      release()
    }
  })
})
