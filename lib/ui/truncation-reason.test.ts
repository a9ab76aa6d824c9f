import { expect, it } from 'vitest'
import { truncationReason } from './truncation-reason'

it('names truncation reasons in words, and keeps an unknown one as it is', () => {
  expect(truncationReason('uncleanLeaderElection')).toBe('source diverged (unclean election)')
  expect(truncationReason('fromScratch', 'short')).toBe('new mirror')
  expect(truncationReason('somethingNew')).toBe('somethingNew')
  expect(truncationReason('toString')).toBe('toString')
})
