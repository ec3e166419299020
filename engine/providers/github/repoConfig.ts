/**
 * `.greenline.yaml` on GitHub: the repository configuration file at the root of the target branch, read at the head
 * the queue works on through the contents API (`GET /repos/{owner}/{repo}/contents/.greenline.yaml?ref=<sha>`,
 * `contents: read`), parsed as the local host parses it. Its `required_statuses` are the source `service_config`,
 * with the same precedence as on the local host: statuses set through the API (`merge_instance`) win, then the
 * file's, then branch protection's.
 */
import type { RepoRef } from '../../model/queues.js';
import { parseRepoConfig, REPO_CONFIG_FILE, RepoConfigError } from '../local/repoConfig.js';
import type { TargetState } from '../types.js';
import type { GitHubClient } from './client.js';
import { statusOf } from './testBranches.js';

/**
 * What the file at `sha` requires: `requiredStatuses` null without a file (or without the key), absent when the file
 * is invalid (the engine keeps what it knew; the problem is logged).
 */
export async function repoConfigAt(
  octokit: GitHubClient,
  repo: RepoRef,
  sha: string,
): Promise<Pick<TargetState, 'requiredStatuses'>> {
  let data: unknown;
  try {
    ({ data } = await octokit.rest.repos.getContent({
      owner: repo.owner,
      repo: repo.name,
      path: REPO_CONFIG_FILE,
      ref: sha,
    }));
  } catch (error) {
    if (statusOf(error) === 404) return { requiredStatuses: null };
    throw error;
  }
  const file = data as { type?: string; content?: string; encoding?: string };
  // A directory of that name (an array), a symlink or a submodule: no configuration file.
  if (Array.isArray(data) || file.type !== 'file' || typeof file.content !== 'string')
    return { requiredStatuses: null };
  const text = Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  try {
    return { requiredStatuses: parseRepoConfig(text).requiredStatuses };
  } catch (error) {
    if (!(error instanceof RepoConfigError)) throw error;
    console.warn(`greenline: ${repo.owner}/${repo.name} at ${sha.slice(0, 12)}: ${error.message}`);
    return {};
  }
}
