/** GitHub's check conclusions as the commit states the engine takes. */
import type { CommitState } from '../../../machines/testRun.js';

/** A check's conclusion as a commit status: passing ones succeed, a cancelled one is an error, the rest fail. */
export function stateOfConclusion(conclusion: string | null | undefined): CommitState {
  switch (conclusion) {
    case null:
    case undefined:
      return 'pending';
    case 'success':
    case 'neutral':
    case 'skipped':
      return 'success';
    case 'cancelled':
      return 'error';
    default:
      return 'failure';
  }
}
