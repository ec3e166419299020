/**
 * How a pull request lands on top of a commit with each merge method, as new commits (no ref moves):
 *
 * - `merge_commit`: one merge commit, parents [current, PR head], tree from `merge-tree --write-tree`;
 * - `squash`: one commit with the same tree and the single parent `current`, message `<title> (#N)` plus the
 *   PR's commit subjects, authored by the PR head's author;
 * - `rebase`: every non-merge commit of the PR not yet in `current`, replayed in order (message and author kept).
 *   Each replay is a cherry-pick: a three-way merge whose base is the replayed commit's parent. git 2.39's
 *   `merge-tree` has no `--merge-base` option (2.40 does), so the base is made explicit with two throw-away
 *   commits that share one parent holding the base tree; a commit whose replay changes nothing is dropped, as
 *   `git rebase` does.
 *
 * Also `replicate`: the same commits again on another parent with every other field kept, which gives the very
 * same commit ids when the parent is the same (merging a test branch built on the current head is then a
 * fast-forward to the tested commits).
 */
import type { MergeMethod } from '../../model/queues.js';
import type { Ident, Repository } from './repository.js';

export type Applied = { ok: true; commits: string[]; tip: string } | { ok: false; files: string[]; detail: string };

/** Identity of the throw-away commits that pin a merge base; fixed, so they are the same objects every time. */
const SCAFFOLD: Ident = { name: 'greenline', email: 'greenline@localhost', date: '1000000000 +0000' };

export async function applyPullRequest(
  repo: Repository,
  current: string,
  pr: { number: number; sha: string },
  method: MergeMethod,
  committer: Ident,
): Promise<Applied> {
  switch (method) {
    case 'merge_commit':
      return mergeCommit(repo, current, pr, committer);
    case 'squash':
      return squash(repo, current, pr, committer);
    case 'rebase':
      return rebase(repo, current, pr, committer);
  }
}

async function mergeCommit(
  repo: Repository,
  current: string,
  pr: { number: number; sha: string },
  committer: Ident,
): Promise<Applied> {
  const merged = await repo.mergeTrees(current, pr.sha);
  if (!merged.clean) return { ok: false, files: merged.files, detail: '' };
  const { subject } = await repo.summary(pr.sha);
  const message = `Merge pull request #${pr.number} from refs/pull/${pr.number}/head\n\n${subject}\n`;
  const commit = await repo.commitTree(merged.tree, [current, pr.sha], message, committer, committer);
  return { ok: true, commits: [commit], tip: commit };
}

async function squash(
  repo: Repository,
  current: string,
  pr: { number: number; sha: string },
  committer: Ident,
): Promise<Applied> {
  const merged = await repo.mergeTrees(current, pr.sha);
  if (!merged.clean) return { ok: false, files: merged.files, detail: '' };
  if (merged.tree === (await repo.tree(current))) return { ok: true, commits: [], tip: current };
  const head = await repo.summary(pr.sha);
  const subjects = await repo.subjects(current, pr.sha);
  const body = subjects.length > 1 ? `\n\n${subjects.map((subject) => `* ${subject}`).join('\n')}` : '';
  const message = `${head.subject} (#${pr.number})${body}\n`;
  const author = { name: head.authorName, email: head.authorEmail, date: committer.date };
  const commit = await repo.commitTree(merged.tree, [current], message, author, committer);
  return { ok: true, commits: [commit], tip: commit };
}

async function rebase(
  repo: Repository,
  current: string,
  pr: { number: number; sha: string },
  committer: Ident,
): Promise<Applied> {
  const commits: string[] = [];
  let tip = current;
  let tipTree = await repo.tree(current);
  for (const sha of await repo.commitsToReplay(current, pr.sha)) {
    const original = await repo.readCommit(sha);
    const parent = original.parents[0];
    const baseTree = parent === undefined ? await repo.emptyTree() : await repo.tree(parent);
    let tree = original.tree;
    if (baseTree !== tipTree) {
      const base = await repo.commitTree(baseTree, [], 'greenline: merge base\n', SCAFFOLD, SCAFFOLD);
      const ours = await repo.commitTree(tipTree, [base], 'greenline: ours\n', SCAFFOLD, SCAFFOLD);
      const theirs = await repo.commitTree(original.tree, [base], 'greenline: theirs\n', SCAFFOLD, SCAFFOLD);
      const merged = await repo.mergeTrees(ours, theirs);
      if (!merged.clean) {
        const subject = original.message.toString('utf8').split('\n')[0] ?? '';
        return { ok: false, files: merged.files, detail: `replaying ${sha.slice(0, 10)} "${subject}"` };
      }
      tree = merged.tree;
    }
    if (tree === tipTree) continue;
    tip = await repo.commitTree(tree, [tip], original.message, original.author, committer, original.encoding);
    tipTree = tree;
    commits.push(tip);
  }
  return { ok: true, commits, tip };
}

/** The commits again on top of `onto`, first parents rewritten, everything else kept. */
export async function replicate(repo: Repository, commits: readonly string[], onto: string): Promise<string> {
  let tip = onto;
  for (const sha of commits) {
    const commit = await repo.readCommit(sha);
    tip = await repo.commitTree(
      commit.tree,
      [tip, ...commit.parents.slice(1)],
      commit.message,
      commit.author,
      commit.committer,
      commit.encoding,
    );
  }
  return tip;
}
