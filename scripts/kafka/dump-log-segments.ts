import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import { defaultLibDir, kafkaMarkerJar } from './paths'

/** One record line (`| offset: ...`) of `kafka.tools.DumpLogSegments --deep-iteration`. */
export interface DumpedRecord {
  offset: number
  /** The record's timestamp; its kind is `timestampType` (named after Kafka's `CreateTime` label). */
  createTime: number
  timestampType: string
  keySize: number
  valueSize: number
  sequence: number
  headerKeys: string[]
  /**
   * Set on records of control batches. `COMMIT`/`ABORT` for end-transaction markers; `LEADER_CHANGE`,
   * `SNAPSHOT_HEADER`, `SNAPSHOT_FOOTER`, `KRAFT_VERSION`, `KRAFT_VOTERS` for the KRaft types; for a type
   * Kafka does not know (e.g. 7 = MIRROR_PID_RESET) Kafka prints `controlType: UNKNOWN(7)`, which becomes
   * `controlType: 'UNKNOWN', controlTypeId: 7`.
   */
  controlType?: string
  controlTypeId?: number
  /** Only for `COMMIT`/`ABORT`. */
  coordinatorEpoch?: number
  /** Kafka's rendering of a KRaft control record's body (e.g. the LeaderChange JSON). */
  controlPayload?: string
}

/** One batch line of `kafka.tools.DumpLogSegments` plus, with deep iteration, its records. */
export interface DumpedBatch {
  baseOffset: number
  lastOffset: number
  count: number
  baseSequence: number
  lastSequence: number
  producerId: number
  producerEpoch: number
  partitionLeaderEpoch: number
  isTransactional: boolean
  isControl: boolean
  /** `null` when Kafka prints `OptionalLong.empty`. */
  deleteHorizonMs: number | null
  /** Byte position of the batch in the segment file. */
  position: number
  /** The batch's max timestamp, labelled by Kafka with its timestamp type. */
  createTime: number
  timestampType: string
  size: number
  magic: number
  compresscodec: string
  crc: number
  isValid: boolean
  records: DumpedRecord[]
}

export interface DumpedLogSegment {
  /** What Kafka derives from the file name. */
  logStartOffset: number | null
  batches: DumpedBatch[]
  /** Bytes at the end of the file that do not form a complete batch (`Found N invalid bytes at the end of ...`). */
  invalidBytesAtEnd: number
}

export interface DumpLogSegmentsOptions {
  /** Folder of Kafka's jars; defaults to `<repo>/.kafka/lib` (filled by `scripts/kafka/fetch.sh`). */
  lib?: string
}

export class DumpLogSegmentsError extends Error {
  constructor(
    readonly code: 'VALIDATION_FAILED' | 'TOOL_FAILED' | 'UNPARSEABLE_OUTPUT' | 'CORRUPT_RECORD',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'DumpLogSegmentsError'
  }
}

const batchLine = new RegExp(
  '^baseOffset: (-?\\d+) lastOffset: (-?\\d+) count: (-?\\d+) baseSequence: (-?\\d+) lastSequence: (-?\\d+) ' +
    'producerId: (-?\\d+) producerEpoch: (-?\\d+) partitionLeaderEpoch: (-?\\d+) isTransactional: (true|false) ' +
    'isControl: (true|false) deleteHorizonMs: (OptionalLong\\.empty|OptionalLong\\[-?\\d+\\]) position: (\\d+) ' +
    '(\\w+): (-?\\d+) size: (\\d+) magic: (\\d+) compresscodec: (\\w+) crc: (\\d+) isvalid: (true|false)$',
)

// The control suffixes are what DumpLogSegments.printControlRecord appends after `headerKeys: [...]`.
const controlSuffix = '(?: (endTxnMarker: .*|LeaderChange: .*|SnapshotHeader .*|SnapshotFooter .*|KRaftVersion .*|KRaftVoters .*|controlType: .*))?'
const recordLine = new RegExp(
  '^\\| offset: (-?\\d+) (\\w+): (-?\\d+) keySize: (-?\\d+) valueSize: (-?\\d+) sequence: (-?\\d+) ' +
    `headerKeys: \\[(.*?)\\]${controlSuffix}$`,
)

const kraftControlTypes: ReadonlyArray<readonly [prefix: string, type: string, id: number]> = [
  ['LeaderChange: ', 'LEADER_CHANGE', 2],
  ['SnapshotHeader ', 'SNAPSHOT_HEADER', 3],
  ['SnapshotFooter ', 'SNAPSHOT_FOOTER', 4],
  ['KRaftVersion ', 'KRAFT_VERSION', 5],
  ['KRaftVoters ', 'KRAFT_VOTERS', 6],
]

function int(text: string | undefined, what: string): number {
  const value = Number(text)
  if (text === undefined || !Number.isSafeInteger(value)) {
    throw new DumpLogSegmentsError('UNPARSEABLE_OUTPUT', `DumpLogSegments printed ${what} "${text}", not a safe integer`)
  }
  return value
}

function group(match: RegExpExecArray, index: number): string {
  const value = match[index]
  if (value === undefined) throw new DumpLogSegmentsError('UNPARSEABLE_OUTPUT', `missing group ${index} in "${match[0]}"`)
  return value
}

function parseControl(suffix: string, line: string): Pick<DumpedRecord, 'controlType' | 'controlTypeId' | 'coordinatorEpoch' | 'controlPayload'> {
  const marker = /^endTxnMarker: (\w+) coordinatorEpoch: (-?\d+)$/.exec(suffix)
  if (marker) {
    const controlType = group(marker, 1)
    const controlTypeId = controlType === 'ABORT' ? 0 : controlType === 'COMMIT' ? 1 : undefined
    return { controlType, ...(controlTypeId === undefined ? {} : { controlTypeId }), coordinatorEpoch: int(marker[2], 'coordinatorEpoch') }
  }
  const unknown = /^controlType: (\w+)\((-?\d+)\)$/.exec(suffix)
  if (unknown) return { controlType: group(unknown, 1), controlTypeId: int(unknown[2], 'controlType id') }
  for (const [prefix, controlType, controlTypeId] of kraftControlTypes) {
    if (suffix.startsWith(prefix)) return { controlType, controlTypeId, controlPayload: suffix.slice(prefix.length) }
  }
  throw new DumpLogSegmentsError('UNPARSEABLE_OUTPUT', `unrecognised control record rendering: ${line}`)
}

/** Parses the stdout of `DumpLogSegments --deep-iteration --files <one .log file>`. */
export function parseDumpLogSegmentsOutput(stdout: string): DumpedLogSegment {
  const batches: DumpedBatch[] = []
  let logStartOffset: number | null = null
  let invalidBytesAtEnd = 0
  for (const line of stdout.split('\n')) {
    if (line === '' || line.startsWith('Dumping ')) continue
    const start = /^Log starting offset: (-?\d+)$/.exec(line)
    if (start) {
      logStartOffset = int(start[1], 'log starting offset')
      continue
    }
    const invalid = /^Found (\d+) invalid bytes at the end of /.exec(line)
    if (invalid) {
      invalidBytesAtEnd = int(invalid[1], 'invalid byte count')
      continue
    }
    const b = batchLine.exec(line)
    if (b) {
      const horizon = group(b, 11)
      batches.push({
        baseOffset: int(b[1], 'baseOffset'),
        lastOffset: int(b[2], 'lastOffset'),
        count: int(b[3], 'count'),
        baseSequence: int(b[4], 'baseSequence'),
        lastSequence: int(b[5], 'lastSequence'),
        producerId: int(b[6], 'producerId'),
        producerEpoch: int(b[7], 'producerEpoch'),
        partitionLeaderEpoch: int(b[8], 'partitionLeaderEpoch'),
        isTransactional: b[9] === 'true',
        isControl: b[10] === 'true',
        deleteHorizonMs: horizon === 'OptionalLong.empty' ? null : int(horizon.slice('OptionalLong['.length, -1), 'deleteHorizonMs'),
        position: int(b[12], 'position'),
        timestampType: group(b, 13),
        createTime: int(b[14], 'batch timestamp'),
        size: int(b[15], 'size'),
        magic: int(b[16], 'magic'),
        compresscodec: group(b, 17),
        crc: int(b[18], 'crc'),
        isValid: b[19] === 'true',
        records: [],
      })
      continue
    }
    const r = recordLine.exec(line)
    if (r) {
      const batch = batches.at(-1)
      if (batch === undefined) throw new DumpLogSegmentsError('UNPARSEABLE_OUTPUT', `record line before any batch: ${line}`)
      const headerKeys = group(r, 7)
      const suffix = r[8]
      batch.records.push({
        offset: int(r[1], 'offset'),
        timestampType: group(r, 2),
        createTime: int(r[3], 'record timestamp'),
        keySize: int(r[4], 'keySize'),
        valueSize: int(r[5], 'valueSize'),
        sequence: int(r[6], 'sequence'),
        headerKeys: headerKeys === '' ? [] : headerKeys.split(','),
        ...(suffix === undefined ? {} : parseControl(suffix, line)),
      })
      continue
    }
    throw new DumpLogSegmentsError('UNPARSEABLE_OUTPUT', `unexpected DumpLogSegments line: ${line}`)
  }
  return { logStartOffset, batches, invalidBytesAtEnd }
}

function runJava(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('java', args, { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        reject(new DumpLogSegmentsError('TOOL_FAILED', `DumpLogSegments failed: ${stderr.trim().split('\n').slice(0, 8).join('\n') || error.message}`, { cause: error }))
      } else {
        resolve(stdout)
      }
    })
  })
}

/** Runs Kafka's own DumpLogSegments (4.1: `kafka.tools.DumpLogSegments`) on one `.log` segment file. */
export async function dumpLogSegment(segmentFile: string, opts: DumpLogSegmentsOptions = {}): Promise<DumpedLogSegment> {
  // Kafka silently ignores files without the .log suffix and derives the start offset from the name.
  if (!/^\d+\.log$/.test(basename(segmentFile))) {
    throw new DumpLogSegmentsError('VALIDATION_FAILED', `not a segment file name (<20 digits>.log): ${segmentFile}`)
  }
  if (!existsSync(segmentFile)) throw new DumpLogSegmentsError('VALIDATION_FAILED', `no such segment file: ${segmentFile}`)
  const lib = opts.lib ?? defaultLibDir
  if (!existsSync(join(lib, kafkaMarkerJar))) {
    throw new DumpLogSegmentsError('VALIDATION_FAILED', `Kafka jars missing in ${lib}: run \`bash scripts/kafka/fetch.sh\``)
  }
  const stdout = await runJava([
    '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', join(lib, '*'),
    'kafka.tools.DumpLogSegments', '--deep-iteration', '--files', segmentFile,
  ])
  return parseDumpLogSegmentsOutput(stdout)
}

/**
 * The batches of a segment file as Kafka reads them. Trailing bytes that do not form a batch are an
 * error here (a torn write must not pass for a clean segment); use `dumpLogSegment` to inspect them.
 */
export async function dumpLogSegments(segmentFile: string, opts: DumpLogSegmentsOptions = {}): Promise<DumpedBatch[]> {
  const dumped = await dumpLogSegment(segmentFile, opts)
  if (dumped.invalidBytesAtEnd > 0) {
    throw new DumpLogSegmentsError('CORRUPT_RECORD', `${segmentFile}: Kafka found ${dumped.invalidBytesAtEnd} invalid bytes at the end`)
  }
  return dumped.batches
}
