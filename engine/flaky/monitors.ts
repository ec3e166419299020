/**
 * Detection: each monitor looks at a test's record (its rolling buckets and retry evidence) at a moment and says
 * whether it is active, with its evidence. Broken outranks flaky; flaky is either monitor of the two that flag it.
 *
 * - pass_on_retry: the test failed and passed on one commit (retries in one upload, or two uploads for one SHA);
 *   active until `resolutionDays` pass without another such commit.
 * - failure_rate: over the last `windowDays` days, at least `minRuns` runs and a failure share of `activationRate`
 *   or more activates it; it resolves when the share falls to `resolutionRate` or below, or no run is left in the
 *   window (hysteresis in between: the state holds).
 * - broken: the same over the latest `windowRuns` runs on the stable branches (of the last 7 days), with its own
 *   thresholds: a breakage shows after about `windowRuns` failures whatever the pace of runs.
 * Runs of infrastructure-failure uploads never reach the buckets; skipped tests are not runs.
 */
import { DAY_MS, dayIndex, rate, sumBuckets } from './buckets.js';
import type { FlakyTestRecord, StatusRecord, StatusValue } from './records.js';
import { BROKEN_MAX_AGE_DAYS, type RepoSettings } from './settings.js';

export interface Evaluation {
  value: StatusValue;
  reason: string;
  failureRateActive: boolean;
  brokenActive: boolean;
  /** When the value changes to this one: normally `now`; for an expired pass-on-retry, when it expired. */
  changedAt: number;
}

const percent = (share: number) => `${Number((share * 100).toFixed(1))}%`;
const iso = (ms: number) => new Date(ms).toISOString();

interface MonitorReading {
  active: boolean;
  evidence: string;
}

function hysteresis(
  wasActive: boolean,
  runs: number,
  fails: number,
  limits: { activationRate: number; resolutionRate: number; minRuns: number },
): boolean {
  const share = rate(fails, runs);
  if (wasActive) return !(runs === 0 || share <= limits.resolutionRate);
  return runs >= limits.minRuns && share >= limits.activationRate;
}

function readBroken(test: FlakyTestRecord, settings: RepoSettings, now: number): MonitorReading {
  const limits = settings.broken;
  const latest = test.recentStable.filter(([at]) => at > now - BROKEN_MAX_AGE_DAYS * DAY_MS).slice(-limits.windowRuns);
  const runs = latest.length;
  const fails = latest.reduce((sum, [, failed]) => sum + failed, 0);
  const active = limits.enabled && hysteresis(test.monitors.broken.active, runs, fails, limits);
  const evidence =
    `broken: ${fails} of the latest ${runs} runs on the stable branches (${settings.stableBranches.join(', ')}) ` +
    `failed (${percent(rate(fails, runs))}, over at most ${limits.windowRuns} runs of the last ${BROKEN_MAX_AGE_DAYS} ` +
    `days; activates at ${percent(limits.activationRate)} ` +
    `with at least ${limits.minRuns} runs, resolves at ${percent(limits.resolutionRate)} or below)`;
  return { active, evidence };
}

function readFailureRate(test: FlakyTestRecord, settings: RepoSettings, now: number): MonitorReading {
  const limits = settings.failureRate;
  const current = dayIndex(now);
  const [, , , , monitoredRuns = 0, monitoredFails = 0, stableRuns = 0, stableFails = 0] = sumBuckets(
    test.days,
    current - limits.windowDays,
    current,
    8,
  );
  const [runs, fails] = limits.branches === 'stable' ? [stableRuns, stableFails] : [monitoredRuns, monitoredFails];
  const active = limits.enabled && hysteresis(test.monitors.failureRate.active, runs, fails, limits);
  const scope = limits.branches === 'stable' ? ` on the stable branches (${settings.stableBranches.join(', ')})` : '';
  const evidence =
    `failure_rate: ${fails} of ${runs} runs${scope} failed in the last ${limits.windowDays} days ` +
    `(${percent(rate(fails, runs))}; activates at ${percent(limits.activationRate)} with at least ${limits.minRuns} ` +
    `runs, resolves at ${percent(limits.resolutionRate)} or below)`;
  return { active, evidence };
}

function readPassOnRetry(
  test: FlakyTestRecord,
  settings: RepoSettings,
  now: number,
): MonitorReading & { expiredAt?: number } {
  const limits = settings.passOnRetry;
  const last = test.monitors.passOnRetry;
  if (last === undefined) return { active: false, evidence: 'pass_on_retry: never failed and passed on one commit' };
  const expiresAt = last.at + limits.resolutionDays * DAY_MS;
  const active = limits.enabled && now < expiresAt;
  const evidence = active
    ? `pass_on_retry: failed and passed on commit ${last.sha.slice(0, 12)} at ${iso(last.at)} ` +
      `(${last.count} such commit${last.count === 1 ? '' : 's'}); resolves ${limits.resolutionDays} days after the last one`
    : `pass_on_retry: no commit with a failure and a pass since ${iso(last.at)} (${limits.resolutionDays} days)`;
  return active ? { active, evidence } : { active, evidence, expiredAt: Math.min(now, expiresAt) };
}

/** The test's status at `now`, given its record (whose monitors hold their previous states). */
export function evaluate(test: FlakyTestRecord, settings: RepoSettings, now: number): Evaluation {
  const broken = readBroken(test, settings, now);
  const failureRate = readFailureRate(test, settings, now);
  const passOnRetry = readPassOnRetry(test, settings, now);
  const previous: StatusRecord = test.status;
  let value: StatusValue;
  let reason: string;
  if (broken.active) {
    value = 'broken';
    reason = broken.evidence;
  } else if (passOnRetry.active || failureRate.active) {
    value = 'flaky';
    reason = [passOnRetry, failureRate]
      .filter((reading) => reading.active)
      .map((reading) => reading.evidence)
      .join('; ');
  } else {
    value = 'healthy';
    reason =
      previous.value === 'healthy'
        ? previous.reason
        : `resolved (was ${previous.value}): ${[broken, passOnRetry, failureRate]
            .filter((_reading, index) => index > 0 || test.monitors.broken.active)
            .map((reading) => reading.evidence)
            .join('; ')}`;
  }
  let changedAt = now;
  if (value !== previous.value && !broken.active && !failureRate.active && passOnRetry.expiredAt !== undefined) {
    // Only the retry evidence aged out: the status changed when it did.
    if (!test.monitors.failureRate.active && !test.monitors.broken.active) changedAt = passOnRetry.expiredAt;
  }
  changedAt = Math.max(changedAt, previous.at);
  return { value, reason, failureRateActive: failureRate.active, brokenActive: broken.active, changedAt };
}

export const INITIAL_REASON = 'healthy: no monitor has flagged this test';
