// Runs in the browser before any of the app's modules (Next's instrumentation-client convention). zod 4 probes
// for eval (`new Function('')`) the first time it builds an object schema; under our CSP that probe is blocked
// and reported as a violation. jitless skips the probe. The layout's inline script sets the same flag, but an
// async chunk can run before the parser reaches it; this file cannot lose that race.
const holder = globalThis as typeof globalThis & { __zod_globalConfig?: { jitless?: boolean } }
holder.__zod_globalConfig = Object.assign(holder.__zod_globalConfig ?? {}, { jitless: true })
