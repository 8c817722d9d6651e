/** Mean µs per call of `fn` over `calls` calls, after a warm-up of 20,000. */
async function microsPerCall(fn, calls) {
  for (let i = 0; i < 20_000; i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn();
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

/**
 * The in-process diagnostics' main loop: three rounds of baseline then Tilecast, printed.
 * With ONLY=b or ONLY=t one side runs once, alone (for `--cpu-prof`).
 */
export async function compareInProcess({ baseline, tilecast, calls }) {
  if (process.env.ONLY) {
    await microsPerCall(process.env.ONLY === 'b' ? baseline : tilecast, calls);
    return;
  }
  for (let round = 0; round < 3; round++) {
    const b = await microsPerCall(baseline, calls);
    const t = await microsPerCall(tilecast, calls);
    console.log(`baseline ${b.toFixed(2)} µs  tilecast ${t.toFixed(2)} µs  added ${(t - b).toFixed(2)} µs`);
  }
}
