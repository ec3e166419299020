/**
 * How long Greenline keeps what it no longer needs (issue 19). Days; 0 keeps forever. The service reads them from
 * the environment (cli/config.ts); README's "Retention" table documents them, keep the two in step.
 */
export interface RetentionSettings {
  /** Ended PRs (merged, failed, cancelled) with their timelines and impacted targets, and ended test runs. */
  prsDays: number;
  /** Queue event logs (settings changes are kept for good: they are the settings history). */
  eventsDays: number;
  /** Flaky-test results: uploads, per-commit results, failures by time, per-commit verdicts. */
  testResultsDays: number;
  /** Webhook delivery ids kept to apply a redelivery once. */
  deliveriesDays: number;
  /** Seconds between sweeps (0: no sweep). */
  sweepSeconds: number;
  /** At most this many records (PRs, runs, events, results) deleted per transaction. */
  batch: number;
}

export const DEFAULT_RETENTION: RetentionSettings = {
  prsDays: 90,
  eventsDays: 90,
  testResultsDays: 30,
  deliveriesDays: 30,
  sweepSeconds: 3600,
  batch: 500,
};

export const DAY_MS = 86_400_000;

/** The time before which data of this kind goes, or undefined when it is kept forever. */
export function cutoff(now: number, days: number): number | undefined {
  return days > 0 ? now - days * DAY_MS : undefined;
}
