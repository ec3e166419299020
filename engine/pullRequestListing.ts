/**
 * listPullRequests: a queue's pull requests, most recently submitted first, filtered by state and by when they
 * concluded, a page at a time. Pure: the engine reads the records, this picks the page.
 */
import { v5 as uuidv5 } from 'uuid';
import { FINAL_PULL_REQUEST_STATES, type PullRequestState } from '../machines/vocabulary.js';
import type { PullRequestRecord } from './model/pullRequests.js';

/** The namespace of cursors: a cursor is a UUID (as the hosted service's are) naming a queue entry. */
const CURSOR_NAMESPACE = '8a1c6f0e-3d52-4b7e-9f1a-6c2d4e8b0a17';
const cursorOf = (pr: PullRequestRecord) => uuidv5(pr.id, CURSOR_NAMESPACE);

export interface PullRequestQuery {
  states?: readonly PullRequestState[];
  /** Inclusive bounds on when the PR concluded (merged, failed or cancelled; ms); with either, only concluded PRs. */
  since?: number;
  until?: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor?: string;
  take: number;
}

export interface PullRequestPage {
  rows: PullRequestRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** The cursor names the first row of the next page, so a page is stable while PRs come and go. */
export function pagePullRequests(
  records: readonly PullRequestRecord[],
  query: PullRequestQuery,
): PullRequestPage | 'unknown cursor' {
  const matching = records
    .filter((pr) => query.states === undefined || query.states.includes(pr.state))
    .filter((pr) => {
      if (query.since === undefined && query.until === undefined) return true;
      // A concluded PR's last state change is its conclusion.
      const at = Date.parse(pr.stateChangedAt);
      const concluded = FINAL_PULL_REQUEST_STATES.includes(pr.state);
      return (
        concluded &&
        (query.since === undefined || at >= query.since) &&
        (query.until === undefined || at <= query.until)
      );
    })
    .sort((a, b) => b.submittedSeq - a.submittedSeq || b.number - a.number);
  let start = 0;
  if (query.cursor !== undefined && query.cursor !== '') {
    const cursor = query.cursor.toLowerCase();
    start = matching.findIndex((pr) => cursorOf(pr) === cursor);
    if (start < 0) return 'unknown cursor';
  }
  const rows = matching.slice(start, start + query.take);
  const next = matching[start + query.take];
  return next === undefined ? { rows } : { rows, nextCursor: cursorOf(next) };
}
