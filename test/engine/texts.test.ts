/**
 * The texts people read on a PR (engine/model/texts.ts): every kind, with its exact text. The samples are typed by
 * kind, so a kind added to the module without a sample here is a compile error (the timeline's samples are in
 * test/engine/timelineSamples.ts).
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
} from '../../engine/model/texts.js';
import { type Samples, TIMELINE_SAMPLES } from './timelineSamples.js';

const COMMENT_SAMPLES: Samples<CommentText, string> = {
  merged: [[{ kind: 'merged', branch: 'main', head: 'abc' }, 'Greenline merged this pull request into main (abc).']],
  removed: [
    [
      { kind: 'removed', reason: 'its tests failed' },
      'Greenline removed this pull request from the queue: its tests failed',
    ],
  ],
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
    [
      { kind: 'statusCheck', context: 'greenline', state: 'failure', description: 'failed in the merge queue' },
      'status check greenline: failure (failed in the merge queue)',
    ],
  ],
};

const ANSWER_SAMPLES: Samples<CommandAnswerText, string> = {
  invalid: [
    [
      { kind: 'invalid', message: '/greenline cancel takes no options (got x)' },
      '/greenline cancel takes no options (got x)',
    ],
  ],
  notAllowed: [
    [
      { kind: 'notAllowed', login: 'eve', repo: { owner: 'acme', name: 'widgets' } },
      '@eve: only people with write access to acme/widgets can use /greenline commands',
    ],
  ],
  noQueue: [[{ kind: 'noQueue', branch: 'dev' }, 'no merge queue with commands enabled for dev']],
  submitted: [
    [{ kind: 'submitted', number: 7, branch: 'main', login: 'ada' }, '#7 submitted to the merge queue of main by @ada'],
  ],
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
    expect(describeVerdict({ failedTests: tests, allFailuresQuarantined: true })).toBe(
      'passed: every failed test is quarantined (a, b, c, d, e and 2 more)',
    );
    expect(describeVerdict({ failedTests: tests, allFailuresQuarantined: false })).toBe(
      'failed: 7 failed test(s), not all quarantined',
    );
  });
});
