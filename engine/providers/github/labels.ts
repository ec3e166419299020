/**
 * State labels (`stateLabelsEnabled`): one label on each queued PR naming its queue state, `greenline: testing` and
 * the like. Setting one removes Greenline's labels of other states and adds it if missing, so repeating it (the
 * outbox retries) changes nothing more. GitHub creates a label the repository does not have yet when it is added.
 */
import type { PullRequestState } from '../../../machines/vocabulary.js';
import type { RepoRef } from '../../model/queues.js';
import type { GitHubClient } from './client.js';

export const STATE_LABEL_PREFIX = 'greenline: ';

/** `TESTS_PASSED` is `greenline: tests passed`. */
export function stateLabel(state: PullRequestState): string {
  return `${STATE_LABEL_PREFIX}${state.toLowerCase().replace(/_/g, ' ')}`;
}

export async function setStateLabel(
  octokit: GitHubClient,
  repo: RepoRef,
  number: number,
  state: PullRequestState,
): Promise<void> {
  const where = { owner: repo.owner, repo: repo.name, issue_number: number };
  const label = stateLabel(state);
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsOnIssue, { ...where, per_page: 100 });
  for (const { name } of labels) {
    if (!name.startsWith(STATE_LABEL_PREFIX) || name === label) continue;
    try {
      await octokit.rest.issues.removeLabel({ ...where, name });
    } catch (error) {
      // Removed already (a repeated effect).
      if ((error as { status?: number }).status !== 404) throw error;
    }
  }
  if (!labels.some(({ name }) => name === label)) await octokit.rest.issues.addLabels({ ...where, labels: [label] });
}
