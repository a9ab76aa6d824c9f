export async function register() {
  // register() runs in every runtime; the engine and its storage are Node-only.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startRuntime } = await import('./server/runtime')
    await startRuntime()
  }
}
