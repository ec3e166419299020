/**
 * listPullRequests: a queue's pull requests, most recently submitted first, filtered by state and by when they last
 * changed state, a page at a time. Pure: the engine reads the records, this picks the page.
 */
import type { PullRequestState } from '../machines/vocabulary.js';
import type { PullRequestRecord } from './pullRequests.js';

export interface PullRequestQuery {
  states?: readonly PullRequestState[];
  /** Inclusive bounds on `stateChangedAt` (ms). */
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

/** The cursor is the queue entry id of the first row of the next page, so a page is stable while PRs come and go. */
export function pagePullRequests(records: readonly PullRequestRecord[], query: PullRequestQuery): PullRequestPage | 'unknown cursor' {
  const matching = records
    .filter((pr) => query.states === undefined || query.states.includes(pr.state))
    .filter((pr) => {
      const at = Date.parse(pr.stateChangedAt);
      return (query.since === undefined || at >= query.since) && (query.until === undefined || at <= query.until);
    })
    .sort((a, b) => b.submittedSeq - a.submittedSeq || b.number - a.number);
  let start = 0;
  if (query.cursor !== undefined && query.cursor !== '') {
    start = matching.findIndex((pr) => pr.id === query.cursor);
    if (start < 0) return 'unknown cursor';
  }
  const rows = matching.slice(start, start + query.take);
  const next = matching[start + query.take];
  return next === undefined ? { rows } : { rows, nextCursor: next.id };
}
