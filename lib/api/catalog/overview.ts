import { AttentionQuery, AttentionResponse } from '../attention'
import { endpoint, V1 } from './endpoint'

/** What the overview reads beyond the lists: computed on the server so the browser never walks every partition. */
export const overviewEndpoints = {
  attention: endpoint({
    operationId: 'listAttention',
    method: 'GET',
    path: `${V1}/attention`,
    role: 'viewer',
    summary: 'Mirror partitions that need attention (FAILED, lag growing for over a minute, stale fetches, paused), worst first',
    query: AttentionQuery,
    status: 200,
    response: AttentionResponse,
  }),
} as const
