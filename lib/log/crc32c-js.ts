import type { Crc32c } from './record-batch'

/*
 * Table-driven CRC32C (Castagnoli, reflected polynomial 0x82F63B78) in plain JS: ~300 MB/s, fine for the
 * browser and for tests of the pure codec. The server injects the native implementation instead.
 */

const TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

export const crc32cJs: Crc32c = (data) => {
  let crc = 0xffffffff
  for (let i = 0; i < data.length; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
