import 'server-only'
import { ApiError } from '@/lib/api/errors'
import type { DemoEnvironment } from '@/server/demo/demo-environment'

/** The demo environment the demo's routes drive: NOT_FOUND outside demo mode (MIRRORBOARD_DEMO=1). */
export function demoOf(runtime: { readonly demo: DemoEnvironment | null }): DemoEnvironment {
  if (runtime.demo === null) {
    throw new ApiError('NOT_FOUND', 'the demo environment is not running: start the server with npm run demo (MIRRORBOARD_DEMO=1)')
  }
  return runtime.demo
}
