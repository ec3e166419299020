/** The record of a pull request in a queue, as the API reads it (spec 2.3 and the addendum's 2.4 fields). */
import type { PullRequestState } from '../machines/vocabulary.js';

export interface PullRequestRecord {
  /** Queue entry id. */
  id: string;
  queueId: string;
  number: number;
  title: string;
  sha: string;
  baseBranch: string;
  author: string;
  state: PullRequestState;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
}
