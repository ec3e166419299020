/**
 * Per-repository monitor and quarantine settings, with their defaults. Every threshold is a fraction (0.2 = 20%).
 * The defaults are documented in docs/flaky-tests.md; keep the two in step.
 */
export interface PassOnRetrySettings {
  enabled: boolean;
  /** A test flagged by a retry pass becomes healthy again after this many days without another one. */
  resolutionDays: number;
}

export interface FailureRateSettings {
  enabled: boolean;
  /** Days of runs the rate is taken over (day-aligned buckets, the current day included). */
  windowDays: number;
  /** Flaky when at least `minRuns` ran in the window and this share or more of them failed. */
  activationRate: number;
  /** A flaky test resolves when its rate falls to this share or below (hysteresis between the two). */
  resolutionRate: number;
  minRuns: number;
  /** Which runs count: every branch, or only the stable branches. */
  branches: 'all' | 'stable';
}

export interface BrokenSettings {
  enabled: boolean;
  /** How many of the latest stable-branch runs (of the last 7 days) the rate is taken over. */
  windowRuns: number;
  activationRate: number;
  resolutionRate: number;
  minRuns: number;
}

export interface InfrastructureFailureSettings {
  enabled: boolean;
  /** An upload in which more than this share of the tests that ran failed is an infrastructure failure... */
  threshold: number;
  /** ...when at least this many tests ran in it. */
  minTests: number;
}

export interface RepoSettings {
  /** Quarantine flaky tests automatically (never broken ones). */
  autoQuarantine: boolean;
  /** Branches whose runs are trusted: the broken monitor looks only at these. */
  stableBranches: string[];
  passOnRetry: PassOnRetrySettings;
  failureRate: FailureRateSettings;
  broken: BrokenSettings;
  infrastructureFailure: InfrastructureFailureSettings;
}

export const MAX_WINDOW_DAYS = 7;
export const MAX_WINDOW_RUNS = 50;
/** Stable-branch runs older than this are forgotten by the broken monitor. */
export const BROKEN_MAX_AGE_DAYS = 7;

export const DEFAULT_SETTINGS: RepoSettings = {
  autoQuarantine: false,
  stableBranches: ['main', 'master'],
  passOnRetry: { enabled: true, resolutionDays: 7 },
  failureRate: {
    enabled: true,
    windowDays: 7,
    activationRate: 0.2,
    resolutionRate: 0.05,
    minRuns: 10,
    branches: 'all',
  },
  broken: { enabled: true, windowRuns: 10, activationRate: 0.9, resolutionRate: 0.5, minRuns: 5 },
  infrastructureFailure: { enabled: true, threshold: 0.8, minTests: 5 },
};

/** A partial update, as the settings endpoint accepts it. */
export interface SettingsPatch {
  autoQuarantine?: boolean;
  stableBranches?: string[];
  passOnRetry?: Partial<PassOnRetrySettings>;
  failureRate?: Partial<FailureRateSettings>;
  broken?: Partial<BrokenSettings>;
  infrastructureFailure?: Partial<InfrastructureFailureSettings>;
}

function defined<T extends object>(patch: Partial<T> | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(patch ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Applies a patch; throws a message (for a 400) when the result is inconsistent. */
export function applySettingsPatch(current: RepoSettings, patch: SettingsPatch): RepoSettings {
  const next: RepoSettings = {
    autoQuarantine: patch.autoQuarantine ?? current.autoQuarantine,
    stableBranches: patch.stableBranches ?? current.stableBranches,
    passOnRetry: { ...current.passOnRetry, ...defined(patch.passOnRetry) },
    failureRate: { ...current.failureRate, ...defined(patch.failureRate) },
    broken: { ...current.broken, ...defined(patch.broken) },
    infrastructureFailure: { ...current.infrastructureFailure, ...defined(patch.infrastructureFailure) },
  };
  if (next.failureRate.resolutionRate >= next.failureRate.activationRate) {
    throw new Error('failure_rate.resolution_threshold must be below failure_rate.activation_threshold');
  }
  if (next.broken.resolutionRate >= next.broken.activationRate) {
    throw new Error('broken.resolution_threshold must be below broken.activation_threshold');
  }
  return next;
}

/** Settings stored by an older build may lack newer fields: fill them from the defaults. */
export function withDefaults(stored: Partial<RepoSettings> | undefined): RepoSettings {
  return {
    ...DEFAULT_SETTINGS,
    ...stored,
    passOnRetry: { ...DEFAULT_SETTINGS.passOnRetry, ...stored?.passOnRetry },
    failureRate: { ...DEFAULT_SETTINGS.failureRate, ...stored?.failureRate },
    broken: { ...DEFAULT_SETTINGS.broken, ...stored?.broken },
    infrastructureFailure: { ...DEFAULT_SETTINGS.infrastructureFailure, ...stored?.infrastructureFailure },
  };
}
