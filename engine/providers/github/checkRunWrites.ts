/**
 * Writing the `greenline` check run of a PR's head (the `checkRun` effect of the engine's outbox, done by the GitHub
 * host). Each check run carries the PR's queue entry as its `external_id`: the one with it is found among the head's
 * `greenline` check runs (every page) and updated, and only when there is none is one made. So an effect tried again
 * after GitHub made the check run but its answer was lost (a timeout, a crash before the outbox entry was removed)
 * updates that one rather than adding a second. The ids found are kept in memory to spare the look-up next time.
 * A completed check run stays completed: should the same entry need one not completed, a new one is made.
 */
import type { RepoRef } from '../../model/queues.js';
import type { CheckRunWrite } from '../types.js';
import { CHECK_RUN_NAME } from './checkRunSummary.js';
import type { GitHubClient } from './client.js';

interface Known {
  id: number;
  completed: boolean;
}

/** Check run ids found or made, by repository, head and external id (the oldest dropped past this many). */
const KEPT = 10_000;

export class CheckRunWriter {
  private readonly known = new Map<string, Known>();

  async write(
    octokit: GitHubClient,
    repo: RepoRef,
    sha: string,
    externalId: string,
    check: CheckRunWrite,
  ): Promise<void> {
    const where = { owner: repo.owner, repo: repo.name };
    const key = `${`${repo.owner}/${repo.name}`.toLowerCase()}@${sha}#${externalId}`;
    const found = this.known.get(key) ?? (await find(octokit, where, sha, externalId));
    const fields = {
      status: check.status,
      ...(check.conclusion === undefined ? {} : { conclusion: check.conclusion }),
      ...(check.completedAt === undefined ? {} : { completed_at: check.completedAt }),
      external_id: externalId,
      output: { title: check.title, summary: check.summary.slice(0, 65_000) },
    };
    let id: number;
    if (found === undefined || (found.completed && check.status !== 'completed')) {
      const { data } = await octokit.rest.checks.create({ ...where, name: CHECK_RUN_NAME, head_sha: sha, ...fields });
      id = Number(data.id);
    } else {
      id = found.id;
      await octokit.rest.checks.update({ ...where, check_run_id: id, ...fields });
    }
    this.known.delete(key);
    this.known.set(key, { id, completed: check.status === 'completed' });
    if (this.known.size > KEPT) this.known.delete(this.known.keys().next().value as string);
  }
}

/** The head's `greenline` check run with this external id (the newest listed first), looked for on every page. */
async function find(
  octokit: GitHubClient,
  where: { owner: string; repo: string },
  sha: string,
  externalId: string,
): Promise<Known | undefined> {
  const pages = octokit.paginate.iterator(octokit.rest.checks.listForRef, {
    ...where,
    ref: sha,
    check_name: CHECK_RUN_NAME,
    filter: 'all',
    per_page: 100,
  });
  for await (const { data } of pages) {
    const mine = data.find((run) => run.external_id === externalId);
    if (mine !== undefined) return { id: Number(mine.id), completed: mine.status === 'completed' };
  }
  return undefined;
}
