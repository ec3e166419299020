/** Applying an evaluation to a test's record, and saving it with the list memberships that follow from it. */
import type { WriteTx } from '../store/store.js';
import type { DayBucket } from './buckets.js';
import type { TestIdentity } from './identity.js';
import { setMember } from './membership.js';
import { INITIAL_REASON, type Evaluation } from './monitors.js';
import { isQuarantined } from './quarantine.js';
import type { FlakyTestRecord, MembershipList } from './records.js';
import type { RepoSettings } from './settings.js';
import { noteTestEvent } from '../notifications/testEvents.js';

const KEPT_HISTORY = 10;

export interface ChangeContext {
  tx: WriteTx;
  org: string;
  repoId: string;
  /** The repository's sequence number of this transaction. */
  seq: number;
  now: number;
  settings: RepoSettings;
}

export function newTestRecord(id: string, identity: TestIdentity, now: number): FlakyTestRecord {
  return {
    id,
    ...identity,
    firstSeenAt: now,
    lastSeenAt: now,
    lastRunAt: 0,
    status: { value: 'healthy', reason: INITIAL_REASON, at: now },
    history: [],
    monitors: { failureRate: { active: false }, broken: { active: false } },
    hours: [],
    recentStable: [],
    days: [],
    prFailures: [],
    totals: { runs: 0, fails: 0, skips: 0 },
  };
}

/** The record with the evaluation's monitor states and status; a changed status is added to the history. */
export function applyEvaluation(test: FlakyTestRecord, evaluation: Evaluation, seq: number): FlakyTestRecord {
  if (evaluation.brokenActive && !test.monitors.broken.active) {
    // The failures that made the test broken are explained by the breakage: the failure-rate monitor forgets them,
    // so that a fixed test does not turn flaky while they age out of its window.
    test = { ...test, days: test.days.map((day) => [...day.slice(0, 5), 0, 0, 0, 0] as DayBucket) };
    evaluation = { ...evaluation, failureRateActive: false };
  }
  const monitors = {
    ...test.monitors,
    failureRate: evaluation.failureRateActive
      ? {
          active: true,
          since: test.monitors.failureRate.active ? test.monitors.failureRate.since : evaluation.changedAt,
        }
      : { active: false },
    broken: evaluation.brokenActive
      ? { active: true, since: test.monitors.broken.active ? test.monitors.broken.since : evaluation.changedAt }
      : { active: false },
  };
  if (evaluation.value === test.status.value) {
    return { ...test, monitors, status: { ...test.status, reason: evaluation.reason } };
  }
  const status = { value: evaluation.value, reason: evaluation.reason, at: evaluation.changedAt };
  return { ...test, monitors, status, history: [...test.history, { ...status, seq }].slice(-KEPT_HISTORY) };
}

function lists(test: FlakyTestRecord | undefined, settings: RepoSettings): Record<MembershipList, boolean> {
  return {
    flaky: test?.status.value === 'flaky',
    broken: test?.status.value === 'broken',
    quarantined: test !== undefined && isQuarantined(test, settings),
  };
}

/**
 * Stores `after`, and moves the test in or out of the flaky, broken and quarantined lists as its new state says.
 * `before` is the record as it was at the start of the transaction (undefined for a new test), and `beforeSettings`
 * the settings it was judged by.
 */
export function saveTest(
  context: ChangeContext,
  before: FlakyTestRecord | undefined,
  after: FlakyTestRecord,
  beforeSettings: RepoSettings = context.settings,
): FlakyTestRecord {
  const was = lists(before, beforeSettings);
  const is = lists(after, context.settings);
  let saved = after;
  if (is.quarantined && !was.quarantined) saved = { ...saved, quarantinedAt: context.now };
  if (!is.quarantined && saved.quarantinedAt !== undefined) {
    saved = { ...saved };
    delete saved.quarantinedAt;
  }
  for (const list of ['flaky', 'broken', 'quarantined'] as const) {
    if (was[list] !== is[list]) {
      setMember(
        context.tx,
        { org: context.org, repoId: context.repoId, list, testId: after.id },
        is[list],
        context.seq,
        context.now,
      );
      if (is[list]) noteTestEvent(context, list, saved);
    }
  }
  context.tx.put('flakyTests', [context.org, context.repoId, after.id], saved);
  return saved;
}
