/**
 * The stand-in's response bodies, from the webhook examples' objects where GitHub's shapes agree (GitHub's OpenAPI
 * description checks every one of them).
 */
import type { Commit, GitModel } from './gitModel.js';
import type { Pull } from './standIn.js';
import { example } from './webhookExamples.js';

export const OWNER = 'Codertocat';
export const REPO = 'Hello-World';
export const INSTALLATION_ID = 2311213;

/** What the bodies read of the stand-in. */
export interface StandInState {
  readonly url: string;
  readonly git: GitModel;
  readonly protection: Map<string, string[]>;
  /** The installation's permissions. */
  readonly granted: Record<string, string>;
  head(branch: string): string | undefined;
}

export class StandInBodies {
  constructor(private readonly stand: StandInState) {}

  private get url(): string {
    return this.stand.url;
  }

  private get git(): GitModel {
    return this.stand.git;
  }

  private get protection(): Map<string, string[]> {
    return this.stand.protection;
  }

  private head(branch: string): string | undefined {
    return this.stand.head(branch);
  }

  user(login: string, bot = false): Record<string, unknown> {
    return {
      ...(example('pull_request', 'opened').pull_request.user as Record<string, unknown>),
      login,
      type: bot ? 'Bot' : 'User',
    };
  }

  installationBody(): Record<string, unknown> {
    const account = this.user(OWNER);
    return {
      id: INSTALLATION_ID,
      account,
      repository_selection: 'selected',
      access_tokens_url: `${this.url}/app/installations/${INSTALLATION_ID}/access_tokens`,
      repositories_url: `${this.url}/installation/repositories`,
      html_url: `https://github.com/settings/installations/${INSTALLATION_ID}`,
      app_id: 1,
      app_slug: 'greenline',
      target_id: account.id,
      target_type: 'User',
      permissions: { ...this.stand.granted },
      events: ['pull_request', 'issue_comment', 'check_suite', 'check_run', 'status', 'push'],
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      single_file_name: null,
      suspended_by: null,
      suspended_at: null,
    };
  }

  gitCommitBody(commit: Commit): Record<string, unknown> {
    const person = { name: commit.author, email: `${commit.author}@example.com`, date: commit.date };
    const [author, committer] =
      commit.people === undefined ? [person, person] : [commit.people.author, commit.people.committer];
    return {
      sha: commit.sha,
      node_id: `C_${commit.sha}`,
      url: `${this.url}/repos/${OWNER}/${REPO}/git/commits/${commit.sha}`,
      html_url: `https://github.com/${OWNER}/${REPO}/commit/${commit.sha}`,
      author,
      committer,
      tree: { sha: commit.treeSha, url: `${this.url}/repos/${OWNER}/${REPO}/git/trees/${commit.treeSha}` },
      message: commit.message,
      parents: commit.parents.map((sha) => ({
        sha,
        url: `${this.url}/repos/${OWNER}/${REPO}/git/commits/${sha}`,
        html_url: `https://github.com/${OWNER}/${REPO}/commit/${sha}`,
      })),
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    };
  }

  commitBody(commit: Commit): Record<string, unknown> {
    const git = this.gitCommitBody(commit);
    return {
      url: `${this.url}/repos/${OWNER}/${REPO}/commits/${commit.sha}`,
      sha: commit.sha,
      node_id: `C_${commit.sha}`,
      html_url: git.html_url,
      comments_url: `${this.url}/repos/${OWNER}/${REPO}/commits/${commit.sha}/comments`,
      commit: {
        url: git.url,
        author: git.author,
        committer: git.committer,
        message: commit.message,
        comment_count: 0,
        tree: git.tree,
      },
      author: null,
      committer: null,
      parents: git.parents,
    };
  }

  branchBody(branch: string, sha: string): Record<string, unknown> {
    const contexts = this.protection.get(branch);
    const protectionUrl = `${this.url}/repos/${OWNER}/${REPO}/branches/${branch}/protection`;
    return {
      name: branch,
      commit: this.commitBody(this.git.commits.get(sha)!),
      _links: {
        html: `https://github.com/${OWNER}/${REPO}/tree/${branch}`,
        self: `${this.url}/repos/${OWNER}/${REPO}/branches/${branch}`,
      },
      protected: contexts !== undefined,
      protection:
        contexts === undefined
          ? { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } }
          : {
              enabled: true,
              required_status_checks: {
                enforcement_level: 'non_admins',
                contexts,
                checks: contexts.map((context) => ({ context, app_id: null })),
              },
            },
      protection_url: protectionUrl,
    };
  }

  refBody(ref: string): Record<string, unknown> {
    const sha = this.git.refs.get(ref)!;
    return {
      ref: `refs/${ref}`,
      node_id: `REF_${ref}`,
      url: `${this.url}/repos/${OWNER}/${REPO}/git/refs/${ref}`,
      object: { type: 'commit', sha, url: `${this.url}/repos/${OWNER}/${REPO}/git/commits/${sha}` },
    };
  }

  pullBody(pull: Pull): Record<string, unknown> {
    const template = example('pull_request', 'opened').pull_request as Record<string, Record<string, unknown>>;
    const baseSha = this.head(pull.base)!;
    let mergeable: boolean | null = null;
    let mergeableState = 'unknown';
    if (pull.state === 'open' && pull.mergeableComputed) {
      const conflicts = 'conflicts' in this.git.mergeFiles(baseSha, pull.head);
      mergeable = !conflicts;
      mergeableState = conflicts ? 'dirty' : 'clean';
    }
    // The first read after a change starts the computation; the next one sees its result.
    if (pull.state === 'open') pull.mergeableComputed = true;
    return {
      ...template,
      number: pull.number,
      title: pull.title,
      user: this.user(pull.author),
      state: pull.state,
      draft: pull.draft,
      merged: pull.merged,
      merged_at: pull.merged ? '2026-01-01T00:00:00Z' : null,
      closed_at: pull.state === 'closed' ? '2026-01-01T00:00:00Z' : null,
      mergeable,
      mergeable_state: mergeableState,
      auto_merge: null,
      head: { ...template.head, ref: pull.headRef, sha: pull.head, label: `${OWNER}:${pull.headRef}` },
      base: { ...template.base, ref: pull.base, sha: baseSha, label: `${OWNER}:${pull.base}` },
    };
  }

  commentBody(comment: { id: number; issue: number; body: string; bot: boolean }): Record<string, unknown> {
    const template = example('issue_comment', 'created').comment as Record<string, unknown>;
    return {
      ...template,
      id: comment.id,
      body: comment.body,
      user: this.user(comment.bot ? 'greenline[bot]' : OWNER, comment.bot),
    };
  }

  statusBody(status: { context: string; state: string; description: string }, id: number): Record<string, unknown> {
    return {
      url: `${this.url}/repos/${OWNER}/${REPO}/statuses/${id}`,
      avatar_url: null,
      id,
      node_id: `S_${id}`,
      state: status.state,
      description: status.description,
      target_url: null,
      context: status.context,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      creator: this.user('greenline[bot]', true),
    };
  }
}
