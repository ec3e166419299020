/**
 * A sample of every kind of timeline text (engine/model/texts.ts) with its stored event and exact message, for
 * test/engine/texts.test.ts. Typed by kind: a kind added to the module without a sample here is a compile error.
 */
import type { TimelineText } from '../../engine/model/texts.js';

export type Samples<U extends { kind: string }, R> = { [K in U['kind']]: [Extract<U, { kind: K }>, R][] };

const submission = { priority: 'high', noBatch: false, skipTheLine: false };
const quarantined = { failedTests: [{ name: 'a' }, { name: 'b' }], allFailuresQuarantined: true };

export const TIMELINE_SAMPLES: Samples<TimelineText, { event: string; message: string }> = {
  submitted: [
    [
      { kind: 'submitted', ...submission },
      { event: 'submitted', message: 'submitted with priority high' },
    ],
    [
      { kind: 'submitted', priority: 'low', noBatch: true, skipTheLine: true },
      { event: 'submitted', message: 'submitted with priority low, not batched, skipping the line' },
    ],
  ],
  resubmitted: [
    [
      { kind: 'resubmitted', ...submission, noBatch: true },
      { event: 'resubmitted', message: 'submitted again: priority high, not batched' },
    ],
  ],
  restartRechecked: [[{ kind: 'restartRechecked' }, { event: 'restarted', message: 'readiness checked again' }]],
  restartWaiting: [
    [{ kind: 'restartWaiting' }, { event: 'restarted', message: 'restart asked; it is already waiting to be tested' }],
  ],
  quarantinePassed: [
    [
      { kind: 'quarantinePassed', context: 'ci/test', verdict: quarantined },
      { event: 'quarantine_passed', message: 'ci/test passed: every failed test is quarantined (a, b)' },
    ],
  ],
  unknownToHost: [
    [{ kind: 'unknownToHost' }, { event: 'not_ready', message: 'the git host does not know this pull request' }],
  ],
  notReady: [
    [
      { kind: 'notReady', why: 'its base branch is dev, not main' },
      { event: 'not_ready', message: 'not ready: its base branch is dev, not main' },
    ],
  ],
  waitingForTargets: [
    [
      { kind: 'waitingForTargets', sha: 'abc' },
      { event: 'not_ready', message: 'not ready: waiting for impacted targets for abc (setImpactedTargets)' },
    ],
  ],
  unready: [
    [
      { kind: 'unready', reason: 'not ready: conflicts' },
      { event: 'not_ready', message: 'not ready: conflicts' },
    ],
  ],
  impactedTargets: [
    [
      { kind: 'impactedTargets', sha: 'abc', targets: 3 },
      { event: 'impacted_targets', message: 'impacted targets for abc: 3 target(s)' },
    ],
    [
      { kind: 'impactedTargets', sha: 'abc', targets: 'ALL' },
      { event: 'impacted_targets', message: 'impacted targets for abc: ALL' },
    ],
  ],
  ready: [
    [
      { kind: 'ready', title: 'Fix', author: 'ada', sha: 'abc', estimate: 'failure likelihood 5.0%' },
      { event: 'ready', message: 'ready: Fix by ada at abc; failure likelihood 5.0%' },
    ],
  ],
  testing: [
    [
      { kind: 'testing', runId: 'r1', basePrs: [], with: [] },
      { event: 'testing', message: 'testing in run r1 on top of the target branch' },
    ],
    [
      { kind: 'testing', runId: 'r2', basePrs: [1, 2], with: [4, 5] },
      { event: 'testing', message: 'testing in run r2 on top of the target branch + #1, #2 with #4, #5' },
    ],
  ],
  passed: [
    [
      { kind: 'passed', runId: 'r1' },
      { event: 'passed', message: 'tests passed in run r1' },
    ],
  ],
  pendingFailure: [
    [
      { kind: 'pendingFailure', reason: 'run r1 failed', estimate: 'e' },
      { event: 'pending_failure', message: 'run r1 failed; e' },
    ],
  ],
  retesting: [
    [
      { kind: 'retesting', reason: 'tested alone once more' },
      { event: 'retesting', message: 'tested alone once more' },
    ],
  ],
  bisecting: [
    [
      { kind: 'bisecting', bisectionId: 'b1', part: [3, 4] },
      { event: 'bisecting', message: 'bisection b1: tested with #3, #4' },
    ],
  ],
  rescued: [
    [
      { kind: 'rescued', bisectionId: 'b1' },
      { event: 'rescued', message: 'found good by bisection b1: back in the main line' },
    ],
  ],
  requeued: [
    [
      { kind: 'requeued', reason: 'the base moved' },
      { event: 'requeued', message: 'the base moved' },
    ],
  ],
  failed: [
    [
      { kind: 'failed', reason: 'its tests failed' },
      { event: 'failed', message: 'removed from the queue: its tests failed' },
    ],
  ],
  cancelled: [
    [
      { kind: 'cancelled', reason: 'cancelled through the API' },
      { event: 'cancelled', message: 'cancelled through the API' },
    ],
  ],
  merging: [
    [
      { kind: 'merging', direct: true, runId: null },
      { event: 'merging', message: 'merging directly (up to date, nothing ahead)' },
    ],
    [
      { kind: 'merging', direct: false, vouchedBy: 'r9', runId: 'r1' },
      { event: 'merging', message: 'merging vouched for by run r9' },
    ],
    [
      { kind: 'merging', direct: false, runId: 'r1' },
      { event: 'merging', message: 'merging after run r1 passed' },
    ],
  ],
  merged: [
    [
      { kind: 'merged', branch: 'main', head: 'abc' },
      { event: 'merged', message: 'merged into main as abc' },
    ],
  ],
  mergeFailed: [
    [
      { kind: 'mergeFailed', reason: 'the git host refused the merge: x' },
      { event: 'merge_failed', message: 'the git host refused the merge: x' },
    ],
  ],
  headPushed: [
    [
      { kind: 'headPushed', before: '0123456789abcdef', after: 'fedcba9876543210' },
      { event: 'head_pushed', message: 'head pushed: 0123456789ab → fedcba987654; tested again in its place' },
    ],
    [
      { kind: 'headPushed', before: '', after: 'fedcba9876543210' },
      { event: 'head_pushed', message: 'head pushed: (unknown) → fedcba987654; tested again in its place' },
    ],
  ],
  speculating: [
    [
      { kind: 'speculating', likelihood: 0.4567, behind: 3 },
      {
        event: 'speculating',
        message:
          'failure likelihood 45.7% with 3 PR(s) behind it in the window: tested alone first, the PRs behind it go on without it',
      },
    ],
  ],
  hostComment: [
    [
      { kind: 'hostComment', message: 'comment: hi' },
      { event: 'comment', message: 'comment: hi' },
    ],
  ],
  hostStatusCheck: [
    [
      { kind: 'hostStatusCheck', message: 'status check greenline: success (merged)' },
      { event: 'status_check', message: 'status check greenline: success (merged)' },
    ],
  ],
};
