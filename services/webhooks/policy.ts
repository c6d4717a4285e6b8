import type { Config } from '../../lib/config';

/**
 * The delivery rules in numbers (docs/webhooks.md). Every duration is multiplied by
 * WORKFLOW_TIME_SCALE, so tests live a day in seconds.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits before the 2nd, 3rd, … attempt; the last repeats until the retry window closes. */
export const RETRY_DELAYS_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR];

/** How long after a rotation the previous secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * HOUR;

/** An endpoint failing for this long without one success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;

/** Delay before the next attempt once `attempts` attempts have failed (1-based). */
export function retryDelayMs(attempts: number, scale: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1] * scale;
}

/** The durations of one deployment. */
export function webhookPolicy(config: Pick<Config, 'webhooks' | 'workflows'>) {
  const scale = config.workflows.timeScale;
  return {
    scale,
    retryWindowMs: config.webhooks.retryHours * HOUR * scale,
    rotationOverlapMs: ROTATION_OVERLAP_MS * scale,
    disableAfterMs: DISABLE_AFTER_MS * scale,
    ratePerSecond: config.webhooks.ratePerSecond,
  };
}
