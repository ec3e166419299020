/**
 * Quarantine: a quarantined test still runs and reports, but its failures do not fail a CI job or a merge-queue
 * run. A test is quarantined by a manual ALWAYS_QUARANTINE override, or automatically when the repository has
 * auto-quarantine on and the test is flaky (never when it is broken); NEVER_QUARANTINE keeps it out either way.
 */
import type { ReadTx } from '../store/store.js';
import { repoId, type RepoRef } from './identity.js';
import { evaluate } from './monitors.js';
import type { FlakyTestRecord, QuarantineOverride } from './records.js';
import { withDefaults, type RepoSettings } from './settings.js';

export type QuarantineSetting = 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE';

/** Why the test is quarantined, or undefined when it is not. */
export function quarantineSetting(test: FlakyTestRecord, settings: RepoSettings): QuarantineSetting | undefined {
  if (test.override?.setting === 'ALWAYS_QUARANTINE') return 'ALWAYS_QUARANTINE';
  if (test.override?.setting === 'NEVER_QUARANTINE') return undefined;
  return settings.autoQuarantine && test.status.value === 'flaky' ? 'AUTO_QUARANTINE' : undefined;
}

export function isQuarantined(test: FlakyTestRecord, settings: RepoSettings): boolean {
  return quarantineSetting(test, settings) !== undefined;
}

/** The overrides a person may set on a test (set-test-quarantine); the API's schemas take their enum from here. */
export const QUARANTINE_OVERRIDES = ['ALWAYS_QUARANTINE', 'NEVER_QUARANTINE'] as const satisfies readonly [
  QuarantineOverride,
  ...QuarantineOverride[],
];

export interface QuarantineVerdict {
  /** Uploads received for the SHA. */
  uploads: number;
  /** Tests that failed on the SHA and never passed on it. */
  failedTests: { id: string; name: string }[];
  /**
   * True when at least one test failed, every failed test is quarantined, and no failure lacked an identity
   * (a nameless test case, or failures a suite only counted). A run whose failures are all quarantined counts as
   * passed.
   */
  allFailuresQuarantined: boolean;
}

/**
 * For the merge queue, inside its transaction: what the uploads for `sha` say about a failed test run. Undefined
 * when nothing was uploaded for that SHA. With `now`, statuses are evaluated at that moment (so an expired
 * pass-on-retry no longer auto-quarantines); without it, the stored statuses are used.
 */
export function quarantineVerdict(
  tx: ReadTx,
  org: string,
  repo: RepoRef,
  sha: string,
  now?: number,
): QuarantineVerdict | undefined {
  const id = repoId(repo);
  const record = tx.get('flakyShas', [org, id, sha.toLowerCase()]);
  if (record === undefined) return undefined;
  const settings = withDefaults(tx.get('flakyRepos', [org, id])?.settings);
  let quarantinedCount = 0;
  for (const failed of record.failing) {
    const test = tx.get('flakyTests', [org, id, failed.id]);
    if (test === undefined) continue;
    const current =
      now === undefined ? test : { ...test, status: { ...test.status, value: evaluate(test, settings, now).value } };
    if (isQuarantined(current, settings)) quarantinedCount += 1;
  }
  return {
    uploads: record.uploads.length,
    failedTests: record.failing.map(({ id: testId, name }) => ({ id: testId, name })),
    allFailuresQuarantined:
      record.failing.length > 0 &&
      record.untrackedFailures === 0 &&
      quarantinedCount === record.failing.length &&
      record.storing === undefined,
  };
}

/** One line for a run's or a PR's timeline (its text is in engine/model/texts.ts). */
export { describeVerdict } from '../model/texts.js';
