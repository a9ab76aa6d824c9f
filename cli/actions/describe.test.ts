import { describe, expect, it } from 'vitest'
import { retryText } from './describe'

// The entries themselves are the server's (lib/mirror/describe-entries.test.ts); the table and --json against a
// running server are in cli/e2e/worked-example.e2e.ts.
describe("--describe --failed's RETRY column, as kafka-cluster-mirrors.sh prints it", () => {
  it('prints attempts over the maximum, or NonRetryable', () => {
    expect([retryText(3, 20), retryText(0, 20), retryText(-1, 20)]).toEqual(['3/20', '0/20', 'NonRetryable'])
  })
})
