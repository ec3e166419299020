/**
 * The stand-in's git data: commits, refs, merges of branches and comparisons of commits (GitHub's Git database and
 * the repository operations over it), on the stand-in's git model.
 */
import type { Commit, Person } from './gitModel.js';
import type { GitHubStandIn } from './standIn.js';
import { OWNER, REPO, type StandInBodies } from './standInBodies.js';
import { invalid, NOT_FOUND, type Answer } from './standInAnswers.js';
import { linkHeader, pageOf } from './standInPaging.js';

export class StandInGitData {
  constructor(
    private readonly standIn: GitHubStandIn,
    private readonly bodies: StandInBodies,
  ) {}

  answer(
    operationId: string,
    params: Record<string, string | undefined>,
    input: Record<string, unknown>,
    query = new URLSearchParams(),
  ): Answer | undefined {
    switch (operationId) {
      case 'repos/compare-commits-with-basehead': {
        const [base, head] = params.basehead!.split('...');
        const baseCommit = this.standIn.git.commits.get(base!);
        const headCommit = this.standIn.git.commits.get(head!);
        if (baseCommit === undefined || headCommit === undefined) return NOT_FOUND;
        const mergeBase = this.standIn.git.mergeBase(base!, head!) ?? base!;
        const status =
          base === head ? 'identical' : mergeBase === base ? 'ahead' : mergeBase === head ? 'behind' : 'diverged';
        // GitHub lists up to 250 commits without paging parameters, and pages of per_page (at most 100) with them.
        const all = this.between(mergeBase, head!);
        const paging = query.has('page') || query.has('per_page');
        const { page, perPage } = pageOf(query);
        const commits = paging ? all.slice((page - 1) * perPage, page * perPage) : all.slice(0, 250);
        const selfUrl = `${this.standIn.url}/repos/${OWNER}/${REPO}/compare/${params.basehead}`;
        return {
          status: 200,
          headers: paging ? linkHeader(selfUrl, query, page, perPage, all.length) : {},
          body: {
            url: `${this.standIn.url}/repos/${OWNER}/${REPO}/compare/${params.basehead}`,
            html_url: `https://github.com/${OWNER}/${REPO}/compare/${params.basehead}`,
            permalink_url: `https://github.com/${OWNER}/${REPO}/compare/${params.basehead}`,
            diff_url: `https://github.com/${OWNER}/${REPO}/compare/${params.basehead}.diff`,
            patch_url: `https://github.com/${OWNER}/${REPO}/compare/${params.basehead}.patch`,
            base_commit: this.bodies.commitBody(baseCommit),
            merge_base_commit: this.bodies.commitBody(this.standIn.git.commits.get(mergeBase)!),
            status,
            ahead_by: this.standIn.git.ancestors(head!).size - this.standIn.git.ancestors(mergeBase).size,
            behind_by: this.standIn.git.ancestors(base!).size - this.standIn.git.ancestors(mergeBase).size,
            total_commits: all.length,
            commits: commits.map((commit) => this.bodies.commitBody(commit)),
          },
        };
      }
      case 'git/get-commit': {
        const commit = this.standIn.git.commits.get(params.commit_sha!);
        return commit === undefined ? NOT_FOUND : { status: 200, body: this.bodies.gitCommitBody(commit) };
      }
      case 'git/create-commit': {
        const files = this.standIn.git.trees.get(String(input.tree));
        const parents = (input.parents as string[] | undefined) ?? [];
        if (files === undefined || parents.some((sha) => !this.standIn.git.commits.has(sha)))
          return invalid('Tree SHA does not exist');
        // As GitHub: the author is the App's bot unless given, the committer the author unless given, and a date not
        // given is now. Commits are content-addressed: with both dates given, the same request gives the same SHA.
        type Given = { name?: string; email?: string; date?: string } | undefined;
        const person = (given: Given, fallback: Person): Person => ({
          name: given?.name ?? fallback.name,
          email: given?.email ?? fallback.email,
          date: given?.date ?? this.standIn.git.now(),
        });
        const bot: Person = { name: 'greenline[bot]', email: 'greenline[bot]@example.com', date: '' };
        const author = person(input.author as Given, bot);
        const committer = input.committer === undefined ? author : person(input.committer as Given, bot);
        const commit = this.standIn.git.commit(files, parents, String(input.message), author.name, {
          author,
          committer,
        });
        return { status: 201, body: this.bodies.gitCommitBody(commit) };
      }
      case 'git/create-ref': {
        const ref = String(input.ref).replace(/^refs\//, '');
        if (this.standIn.git.refs.has(ref)) return invalid('Reference already exists');
        if (!this.standIn.git.commits.has(String(input.sha))) return invalid('Object does not exist');
        this.standIn.setRef(ref, String(input.sha));
        return { status: 201, body: this.bodies.refBody(ref) };
      }
      case 'git/update-ref': {
        const ref = params.ref!;
        const now = this.standIn.git.refs.get(ref);
        const sha = String(input.sha);
        if (now === undefined) return invalid('Reference does not exist');
        if (!this.standIn.git.commits.has(sha)) return invalid('Object does not exist');
        if (input.force !== true && !this.standIn.git.isAncestor(now, sha))
          return invalid('Update is not a fast forward');
        if (this.standIn.pullRequestsOnly.has(ref.replace(/^heads\//, '')))
          return invalid(`Protected branch update failed for refs/${ref}.`);
        this.standIn.setRef(ref, sha);
        return { status: 200, body: this.bodies.refBody(ref) };
      }
      case 'git/delete-ref': {
        if (!this.standIn.git.refs.delete(params.ref!)) return invalid('Reference does not exist');
        // GitHub closes the pull requests of a deleted branch.
        for (const pull of this.standIn.pulls.values())
          if (`heads/${pull.headRef}` === params.ref && pull.state === 'open') pull.state = 'closed';
        return { status: 204 };
      }
      case 'repos/merge': {
        const base = String(input.base);
        const ours = this.standIn.head(base);
        const theirs = this.standIn.git.commits.has(String(input.head))
          ? String(input.head)
          : this.standIn.head(String(input.head));
        if (ours === undefined || theirs === undefined) return NOT_FOUND;
        if (this.standIn.git.isAncestor(theirs, ours)) return { status: 204 };
        const merged = this.standIn.git.mergeFiles(ours, theirs);
        if ('conflicts' in merged)
          return {
            status: 409,
            body: { message: 'Merge conflict', documentation_url: 'https://docs.github.com/rest' },
          };
        const message =
          typeof input.commit_message === 'string' ? input.commit_message : `Merge ${String(input.head)} into ${base}`;
        const commit = this.standIn.git.commit(merged.files, [ours, theirs], message, 'greenline[bot]');
        this.standIn.setRef(`heads/${base}`, commit.sha);
        return { status: 201, body: this.bodies.commitBody(commit) };
      }
      default:
        return undefined;
    }
  }

  /** Commits reachable from `head` but not from `base`, oldest first (as GitHub's compare lists them). */
  private between(base: string, head: string): Commit[] {
    const below = this.standIn.git.ancestors(base);
    const commits = [...this.standIn.git.ancestors(head)]
      .filter((sha) => !below.has(sha))
      .map((sha) => this.standIn.git.commits.get(sha)!);
    return commits.sort((a, b) => a.date.localeCompare(b.date));
  }
}
