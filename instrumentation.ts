export async function register() {
  // register() runs in every runtime; the engine and its storage are Node-only.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startRuntime } = await import('./server/runtime')
    try {
      await startRuntime()
    } catch (error) {
      // A runtime that cannot start (the control cluster unreachable, a wrong MIRRORBOARD_SECRET_KEY, a bad setting)
      // would answer every request with a 500: the process stops instead, saying why, with a non-zero exit code.
      const reasons: string[] = []
      for (let at: unknown = error; at instanceof Error && reasons.length < 5; at = at.cause) if (!reasons.some((reason) => reason.includes(at instanceof Error ? at.message : ''))) reasons.push(at.message)
      console.error(`mirrorboard could not start: ${reasons.length > 0 ? reasons.join(' ← ') : String(error)}`)
      process.exit(1)
    }
  }
}
