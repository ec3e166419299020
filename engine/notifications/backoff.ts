/**
 * When a failed delivery is tried again: exponential backoff with jitter. Attempt n (n ≥ 1 failed so far) waits
 * BASE_MS · 2^(n−1), at most MAX_DELAY_MS, times a random factor in [1 − JITTER, 1 + JITTER] (so that endpoints down
 * together are not all tried again in the same instant). After MAX_ATTEMPTS failed attempts the message is given up
 * (status `failed`); it can still be redelivered by hand. With these figures a message is tried 16 times over about
 * eleven hours.
 */
export const BASE_MS = 5_000;
export const MAX_DELAY_MS = 60 * 60_000;
export const JITTER = 0.2;
export const MAX_ATTEMPTS = 16;

/** The delay before the next attempt after `failed` failed attempts; `random` in [0, 1). */
export function retryDelayMs(failed: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, BASE_MS * 2 ** Math.max(0, failed - 1));
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
