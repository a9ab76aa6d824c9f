import { link, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { removeTree } from './remove-tree'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('removeTree (on a worker thread)', () => {
  it('removes a tree of directories, files and hard links, and leaves what is beside it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'remove-tree-'))
    const tree = path.join(dir, 'sandbox')
    for (let partition = 0; partition < 20; partition++) {
      const log = path.join(tree, 'broker-1', `topic-${partition}`)
      await mkdir(log, { recursive: true })
      await writeFile(path.join(log, '00000000000000000000.log'), `log ${partition}`)
      await link(path.join(log, '00000000000000000000.log'), path.join(log, 'linked.log'))
    }
    await writeFile(path.join(dir, 'beside'), 'kept')
    await removeTree(tree)
    expect(await readdir(dir)).toEqual(['beside'])
  })

  it('is fine with a tree already gone', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'remove-tree-'))
    await expect(removeTree(path.join(dir, 'never-made'))).resolves.toBeUndefined()
  })
})
