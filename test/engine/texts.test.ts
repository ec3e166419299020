/**
 * The texts people read on a PR (engine/model/texts.ts): every kind, with its exact text. The samples are typed by
 * kind, so a kind added to the module without a sample here is a compile error.
 */
import { describe, expect, it } from 'vitest';
import {
  commandAnswerText,
  commentText,
  describeVerdict,
  hostNoteText,
  statusCheckText,
  testPullRequestText,
  TIMELINE,
  timelineLine,
  type CommandAnswerText,
  type CommentText,
  type HostNoteText,
  type StatusCheckText,
  type TimelineKind,
  type TimelineText,
} from '../../engine/model/texts.js';

type Samples<U extends { kind: string }, R> = { [K in U['kind']]: [Extract<U, { kind: K }>, R][] };

const submission = { priority: 'high', noBatch: false, skipTheLine: false };
const quarantined = { failedTests: [{ name: 'a' }, { name: 'b' }], allFailuresQuarantined: true };

const TIMELINE_SAMPLES: Samples<TimelineText, { event: string; message: string }> = {
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
  restartWaiting: [[{ kind: 'restartWaiting' }, { event: 'restarted', message: 'restart asked; it is already waiting to be tested' }]],
  quarantinePassed: [
    [
      { kind: 'quarantinePassed', context: 'ci/test', verdict: quarantined },
      { event: 'quarantine_passed', message: 'ci/test passed: every failed test is quarantined (a, b)' },
    ],
  ],
  unknownToHost: [[{ kind: 'unknownToHost' }, { event: 'not_ready', message: 'the git host does not know this pull request' }]],
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
      { event: 'speculating', message: 'failure likelihood 45.7% with 3 PR(s) behind it in the window: tested alone first, the PRs behind it go on without it' },
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

const COMMENT_SAMPLES: Samples<CommentText, string> = {
  merged: [[{ kind: 'merged', branch: 'main', head: 'abc' }, 'Greenline merged this pull request into main (abc).']],
  removed: [[{ kind: 'removed', reason: 'its tests failed' }, 'Greenline removed this pull request from the queue: its tests failed']],
};

const STATUS_SAMPLES: Samples<StatusCheckText, { state: string; description: string }> = {
  testing: [
    [
      { kind: 'testing', runId: 'r1' },
      { state: 'pending', description: 'testing in r1' },
    ],
  ],
  failed: [[{ kind: 'failed' }, { state: 'failure', description: 'failed in the merge queue' }]],
  cancelled: [
    [
      { kind: 'cancelled', reason: 'gone' },
      { state: 'failure', description: 'cancelled: gone' },
    ],
  ],
  merged: [[{ kind: 'merged' }, { state: 'success', description: 'merged' }]],
};

const NOTE_SAMPLES: Samples<HostNoteText, string> = {
  comment: [[{ kind: 'comment', body: 'Greenline merged this' }, 'comment: Greenline merged this']],
  statusCheck: [
    [{ kind: 'statusCheck', context: 'greenline', state: 'failure', description: 'failed in the merge queue' }, 'status check greenline: failure (failed in the merge queue)'],
  ],
};

const ANSWER_SAMPLES: Samples<CommandAnswerText, string> = {
  invalid: [[{ kind: 'invalid', message: '/greenline cancel takes no options (got x)' }, '/greenline cancel takes no options (got x)']],
  notAllowed: [[{ kind: 'notAllowed', login: 'eve', repo: { owner: 'acme', name: 'widgets' } }, '@eve: only people with write access to acme/widgets can use /greenline commands']],
  noQueue: [[{ kind: 'noQueue', branch: 'dev' }, 'no merge queue with commands enabled for dev']],
  submitted: [[{ kind: 'submitted', number: 7, branch: 'main', login: 'ada' }, '#7 submitted to the merge queue of main by @ada']],
  notQueued: [[{ kind: 'notQueued', number: 7, branch: 'main' }, '#7 is not in the merge queue of main']],
  beingMerged: [[{ kind: 'beingMerged', number: 7 }, '#7 is being merged; it cannot be cancelled now']],
  cancelled: [[{ kind: 'cancelled', number: 7, login: 'ada' }, '#7 cancelled by @ada']],
};

function cases<U extends { kind: string }, R>(samples: Samples<U, R>): [U, R][] {
  return Object.values(samples).flat() as [U, R][];
}

describe('the texts people read on a pull request', () => {
  it('has a timeline text for every kind, with its stored event and exact message', () => {
    expect(Object.keys(TIMELINE_SAMPLES).sort()).toEqual((Object.keys(TIMELINE) as TimelineKind[]).sort());
    for (const [text, expected] of cases(TIMELINE_SAMPLES)) expect(timelineLine(text), text.kind).toEqual(expected);
  });

  it('has every comment, status check, host note and answer to a command', () => {
    for (const [text, expected] of cases(COMMENT_SAMPLES)) expect(commentText(text)).toBe(expected);
    for (const [text, expected] of cases(STATUS_SAMPLES)) expect(statusCheckText(text)).toEqual(expected);
    for (const [text, expected] of cases(NOTE_SAMPLES)) expect(hostNoteText(text)).toBe(expected);
    for (const [text, expected] of cases(ANSWER_SAMPLES)) expect(commandAnswerText(text)).toBe(expected);
  });

  it('names a test branch pull request', () => {
    expect(testPullRequestText('r3', [1, 2], 'main')).toEqual({
      title: 'Greenline test run r3',
      body: 'Tests #1, #2 on top of main. Greenline deletes the branch, and GitHub closes this pull request, when the run ends.',
    });
  });

  it('says why a failure did or did not pass on quarantined tests, naming at most five tests', () => {
    const tests = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => ({ name }));
    expect(describeVerdict({ failedTests: tests, allFailuresQuarantined: true })).toBe('passed: every failed test is quarantined (a, b, c, d, e and 2 more)');
    expect(describeVerdict({ failedTests: tests, allFailuresQuarantined: false })).toBe('failed: 7 failed test(s), not all quarantined');
  });
});
