import { z } from 'zod'
import { API_ERROR_CODES, type ErrorBody as ErrorBodyShape } from './errors'

/** The API's error body as a schema: the server's problem responses and the OpenAPI document use it. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(API_ERROR_CODES),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
})
export type ErrorBody = z.infer<typeof ErrorBody>

// The hand-written shape in ./errors.ts (the browser's) and this schema describe one body.
const sameShape: [ErrorBody, ErrorBodyShape] = [{} as ErrorBodyShape, {} as ErrorBody]
void sameShape
