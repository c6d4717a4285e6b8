/**
 * Spaces request starts `1000 / ratePerSecond` ms apart (the per-endpoint rate). The clock and the
 * sleep are parameters so the rule is testable without waiting.
 */
export function pacer(
  ratePerSecond: number,
  clock: { now(): number; sleep(ms: number): Promise<void> } = { now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
): () => Promise<void> {
  const interval = 1000 / ratePerSecond;
  let next = clock.now();
  return async () => {
    const now = clock.now();
    const wait = next - now;
    next = Math.max(next, now) + interval;
    if (wait > 0) await clock.sleep(wait);
  };
}
