/**
 * Every text Greenline writes for people on a pull request, in one place: the lines of its timeline, the comment on
 * it, its `greenline` status check, the answers to `/greenline` commands, the draft pull request of a test branch,
 * and the notes a host without pages of its own keeps. Each is a typed kind (a discriminated union) with its text in
 * a table keyed by kind, so that a kind without a text is a compile error. Clients and tests read these texts:
 * change them only on purpose.
 *
 * Reasons (why a PR failed, was requeued or cancelled) are made where the decision is, and arrive here as strings.
 */

/** `describeVerdict`'s input: a quarantine verdict as the flaky-test service gives it. */
export interface VerdictFacts {
  failedTests: readonly { name: string }[];
  allFailuresQuarantined: boolean;
}

interface Submission {
  priority: string;
  noBatch: boolean;
  skipTheLine: boolean;
  /** Who asked, when known (`token tok_…`). */
  by?: string;
}

/** A line of a PR's timeline; `kind` names the text, the table gives the line's stored `event` and its message. */
export type TimelineText =
  | ({ kind: 'submitted' } & Submission)
  | ({ kind: 'resubmitted' } & Submission)
  | { kind: 'restartRechecked'; by?: string }
  | { kind: 'restartWaiting'; by?: string }
  | { kind: 'quarantinePassed'; context: string; verdict: VerdictFacts }
  | { kind: 'unknownToHost' }
  | { kind: 'notReady'; why: string }
  | { kind: 'waitingForTargets'; sha: string }
  /** A PR of the line-up sent back to waiting: `reason` says why in full. */
  | { kind: 'unready'; reason: string }
  | { kind: 'impactedTargets'; sha: string; targets: number | 'ALL' }
  | { kind: 'ready'; title: string; author: string; sha: string; estimate: string }
  | { kind: 'testing'; runId: string; basePrs: readonly number[]; with: readonly number[] }
  | { kind: 'passed'; runId: string }
  | { kind: 'pendingFailure'; reason: string; estimate: string }
  | { kind: 'retesting'; reason: string }
  | { kind: 'bisecting'; bisectionId: string; part: readonly number[] }
  | { kind: 'rescued'; bisectionId: string }
  | { kind: 'requeued'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'merging'; direct: boolean; vouchedBy?: string; runId: string | null }
  | { kind: 'merged'; branch: string; head: string }
  | { kind: 'mergeFailed'; reason: string }
  | { kind: 'headPushed'; before: string; after: string }
  /** `line`: speculation along the build graph; `behind` is then the PRs ahead of it in its line whose outcome is open. */
  | { kind: 'speculating'; likelihood: number; behind: number; line?: true }
  /** What the git host recorded on the PR (a comment, the status check), as its note says. */
  | { kind: 'hostComment'; message: string }
  | { kind: 'hostStatusCheck'; message: string };

export type TimelineKind = TimelineText['kind'];
type Of<U extends { kind: string }, K extends U['kind']> = Extract<U, { kind: K }>;

const byWhom = (by: string | undefined) => (by === undefined ? '' : ` by ${by}`);
const submission = (s: Submission) =>
  `${s.noBatch ? ', not batched' : ''}${s.skipTheLine ? ', skipping the line' : ''}`;

/** Each timeline kind: the `event` stored with the line, and its message. */
export const TIMELINE: { readonly [K in TimelineKind]: { event: string; text: (t: Of<TimelineText, K>) => string } } = {
  submitted: {
    event: 'submitted',
    text: (t) => `submitted${byWhom(t.by)} with priority ${t.priority}${submission(t)}`,
  },
  resubmitted: {
    event: 'resubmitted',
    text: (t) => `submitted again${byWhom(t.by)}: priority ${t.priority}${submission(t)}`,
  },
  restartRechecked: {
    event: 'restarted',
    text: (t) => (t.by === undefined ? 'readiness checked again' : `restart asked by ${t.by}: readiness checked again`),
  },
  restartWaiting: {
    event: 'restarted',
    text: (t) => `restart asked${byWhom(t.by)}; it is already waiting to be tested`,
  },
  quarantinePassed: { event: 'quarantine_passed', text: (t) => `${t.context} ${describeVerdict(t.verdict)}` },
  unknownToHost: { event: 'not_ready', text: () => 'the git host does not know this pull request' },
  notReady: { event: 'not_ready', text: (t) => `not ready: ${t.why}` },
  waitingForTargets: {
    event: 'not_ready',
    text: (t) => `not ready: waiting for impacted targets for ${t.sha} (setImpactedTargets)`,
  },
  unready: { event: 'not_ready', text: (t) => t.reason },
  impactedTargets: {
    event: 'impacted_targets',
    text: (t) => `impacted targets for ${t.sha}: ${t.targets === 'ALL' ? 'ALL' : `${t.targets} target(s)`}`,
  },
  ready: { event: 'ready', text: (t) => `ready: ${t.title} by ${t.author} at ${t.sha}; ${t.estimate}` },
  testing: {
    event: 'testing',
    text: (t) => {
      const onTop = t.basePrs.length === 0 ? 'the target branch' : `the target branch + #${t.basePrs.join(', #')}`;
      const batch = t.with.length > 0 ? ` with #${t.with.join(', #')}` : '';
      return `testing in run ${t.runId} on top of ${onTop}${batch}`;
    },
  },
  passed: { event: 'passed', text: (t) => `tests passed in run ${t.runId}` },
  pendingFailure: { event: 'pending_failure', text: (t) => `${t.reason}; ${t.estimate}` },
  retesting: { event: 'retesting', text: (t) => t.reason },
  bisecting: { event: 'bisecting', text: (t) => `bisection ${t.bisectionId}: tested with #${t.part.join(', #')}` },
  rescued: { event: 'rescued', text: (t) => `found good by bisection ${t.bisectionId}: back in the main line` },
  requeued: { event: 'requeued', text: (t) => t.reason },
  failed: { event: 'failed', text: (t) => `removed from the queue: ${t.reason}` },
  cancelled: { event: 'cancelled', text: (t) => t.reason },
  merging: {
    event: 'merging',
    text: (t) =>
      `merging ${t.direct ? 'directly (up to date, nothing ahead)' : t.vouchedBy !== undefined ? `vouched for by run ${t.vouchedBy}` : `after run ${t.runId ?? ''} passed`}`,
  },
  merged: { event: 'merged', text: (t) => `merged into ${t.branch} as ${t.head}` },
  mergeFailed: { event: 'merge_failed', text: (t) => t.reason },
  headPushed: {
    event: 'head_pushed',
    text: (t) =>
      `head pushed: ${t.before.slice(0, 12) || '(unknown)'} → ${t.after.slice(0, 12)}; tested again in its place`,
  },
  speculating: {
    event: 'speculating',
    text: (t) =>
      t.line === true
        ? `failure likelihood ${(t.likelihood * 100).toFixed(1)}% with ${t.behind} PR(s) ahead of it in its line not yet passed: tested alone first, then on top of the PRs ahead once they passed alone`
        : `failure likelihood ${(t.likelihood * 100).toFixed(1)}% with ${t.behind} PR(s) behind it in the window: tested alone first, the PRs behind it go on without it`,
  },
  hostComment: { event: 'comment', text: (t) => t.message },
  hostStatusCheck: { event: 'status_check', text: (t) => t.message },
};

/** A timeline line's stored event and message. */
export function timelineLine(t: TimelineText): { event: string; message: string } {
  const entry = TIMELINE[t.kind] as { event: string; text: (t: TimelineText) => string };
  return { event: entry.event, message: entry.text(t) };
}

/** The comment Greenline keeps on a PR (`commentsEnabled`). */
export type CommentText = { kind: 'merged'; branch: string; head: string } | { kind: 'removed'; reason: string };

const COMMENTS: { readonly [K in CommentText['kind']]: (t: Of<CommentText, K>) => string } = {
  merged: (t) => `Greenline merged this pull request into ${t.branch} (${t.head}).`,
  removed: (t) => `Greenline removed this pull request from the queue: ${t.reason}`,
};

export function commentText(t: CommentText): string {
  return (COMMENTS[t.kind] as (t: CommentText) => string)(t);
}

/** The PR's `greenline` status check (`statusCheckEnabled`): its state and description. */
export type StatusCheckText =
  | { kind: 'testing'; runId: string }
  | { kind: 'failed' }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'merged' };
export type StatusCheckState = 'pending' | 'success' | 'failure';

const STATUS_CHECKS: {
  readonly [K in StatusCheckText['kind']]: { state: StatusCheckState; text: (t: Of<StatusCheckText, K>) => string };
} = {
  testing: { state: 'pending', text: (t) => `testing in ${t.runId}` },
  failed: { state: 'failure', text: () => 'failed in the merge queue' },
  cancelled: { state: 'failure', text: (t) => `cancelled: ${t.reason}` },
  merged: { state: 'success', text: () => 'merged' },
};

export function statusCheckText(t: StatusCheckText): { state: StatusCheckState; description: string } {
  const entry = STATUS_CHECKS[t.kind] as { state: StatusCheckState; text: (t: StatusCheckText) => string };
  return { state: entry.state, description: entry.text(t) };
}

/** Greenline's answer to a `/greenline` command in a PR's comments (GitHub), in its comment on the PR. */
export type CommandAnswerText =
  /** The command did not parse: the parser says why. */
  | { kind: 'invalid'; message: string }
  | { kind: 'notAllowed'; login: string; repo: { owner: string; name: string } }
  | { kind: 'noQueue'; branch: string }
  | { kind: 'submitted'; number: number; branch: string; login: string }
  | { kind: 'notQueued'; number: number; branch: string }
  | { kind: 'beingMerged'; number: number }
  | { kind: 'cancelled'; number: number; login: string };

const COMMAND_ANSWERS: { readonly [K in CommandAnswerText['kind']]: (t: Of<CommandAnswerText, K>) => string } = {
  invalid: (t) => t.message,
  notAllowed: (t) =>
    `@${t.login}: only people with write access to ${t.repo.owner}/${t.repo.name} can use /greenline commands`,
  noQueue: (t) => `no merge queue with commands enabled for ${t.branch}`,
  submitted: (t) => `#${t.number} submitted to the merge queue of ${t.branch} by @${t.login}`,
  notQueued: (t) => `#${t.number} is not in the merge queue of ${t.branch}`,
  beingMerged: (t) => `#${t.number} is being merged; it cannot be cancelled now`,
  cancelled: (t) => `#${t.number} cancelled by @${t.login}`,
};

export function commandAnswerText(t: CommandAnswerText): string {
  return (COMMAND_ANSWERS[t.kind] as (t: CommandAnswerText) => string)(t);
}

/** The draft pull request of a test branch (`createPrsForTestingBranches`, GitHub). */
export function testPullRequestText(
  runId: string,
  numbers: readonly number[],
  targetBranch: string,
): { title: string; body: string } {
  return {
    title: `Greenline test run ${runId}`,
    body: `Tests ${numbers.map((number) => `#${number}`).join(', ')} on top of ${targetBranch}. Greenline deletes the branch, and GitHub closes this pull request, when the run ends.`,
  };
}

/** What a host without pages of its own (the local host) notes for a comment or a status check. */
export type HostNoteText =
  | { kind: 'comment'; body: string }
  | { kind: 'statusCheck'; context: string; state: StatusCheckState; description: string };

const HOST_NOTES: { readonly [K in HostNoteText['kind']]: (t: Of<HostNoteText, K>) => string } = {
  comment: (t) => `comment: ${t.body}`,
  statusCheck: (t) => `status check ${t.context}: ${t.state} (${t.description})`,
};

export function hostNoteText(t: HostNoteText): string {
  return (HOST_NOTES[t.kind] as (t: HostNoteText) => string)(t);
}

/** One line saying why a run's failure did or did not pass on quarantined tests. */
export function describeVerdict(verdict: VerdictFacts): string {
  const names = verdict.failedTests.slice(0, 5).map((test) => test.name);
  const more =
    verdict.failedTests.length > names.length ? ` and ${verdict.failedTests.length - names.length} more` : '';
  return verdict.allFailuresQuarantined
    ? `passed: every failed test is quarantined (${names.join(', ')}${more})`
    : `failed: ${verdict.failedTests.length} failed test(s), not all quarantined`;
}
