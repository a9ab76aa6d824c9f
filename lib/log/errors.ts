import { CodedError } from '../coded-error'

/** Typed failures of the log layer; the names are Kafka's error codes where Kafka has one. */
export type StorageErrorCode =
  | 'VALIDATION_FAILED'
  | 'CORRUPT_RECORD'
  | 'INVALID_RECORD'
  | 'UNSUPPORTED_COMPRESSION_TYPE'
  | 'RECORD_TOO_LARGE'
  | 'OFFSET_OUT_OF_RANGE'
  | 'OUT_OF_ORDER_SEQUENCE'
  | 'INVALID_PRODUCER_EPOCH'
  | 'INVALID_TXN_STATE'
  | 'TRANSACTION_COORDINATOR_FENCED'
  | 'FENCED_LEADER_EPOCH'
  | 'LOG_TRUNCATED'
  | 'LOG_CLOSED'
  | 'KAFKA_STORAGE_ERROR'

export class StorageError extends CodedError<StorageErrorCode> {
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options)
    this.name = 'StorageError'
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code)
}
