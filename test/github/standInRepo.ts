/**
 * The stand-in's repository-level operations: branches and their rules, the contents API (files at a commit),
 * comments, commit statuses and collaborators' permission.
 */
import type { GitHubStandIn } from './standIn.js';
import { OWNER, REPO, type StandInBodies } from './standInBodies.js';
import { NOT_FOUND, type Answer } from './standInAnswers.js';
import { paged } from './standInPaging.js';
import { treeShaOf } from './gitModel.js';

export class StandInRepo {
  constructor(
    private readonly standIn: GitHubStandIn,
    private readonly bodies: StandInBodies,
  ) {}

  answer(
    operationId: string,
    p: Record<string, string | undefined>,
    input: Record<string, unknown>,
    query: URLSearchParams,
  ): Answer | undefined {
    const s = this.standIn;
    const root = `${s.url}/repos/${OWNER}/${REPO}`;
    switch (operationId) {
      case 'repos/get-branch': {
        const sha = s.head(p.branch!);
        if (sha === undefined) return NOT_FOUND;
        return { status: 200, body: this.bodies.branchBody(p.branch!, sha) };
      }
      case 'repos/get-branch-rules': {
        const required = s.rulesets.get(p.branch!) ?? [];
        const rules =
          required.length === 0
            ? []
            : [
                {
                  type: 'required_status_checks',
                  ruleset_source_type: 'Repository',
                  ruleset_source: `${OWNER}/${REPO}`,
                  ruleset_id: 42,
                  parameters: {
                    strict_required_status_checks_policy: false,
                    required_status_checks: required.map((context) => ({ context })),
                  },
                },
              ];
        return paged([...rules, ...s.reviews.rules(p.branch!)], query, `${root}/rules/branches/${p.branch}`);
      }
      case 'repos/get-content':
        return this.content(p.path!, query.get('ref') ?? 'main');
      case 'issues/list-comments': {
        const all = s.comments
          .filter((comment) => comment.issue === Number(p.issue_number))
          .map((comment) => this.bodies.commentBody(comment));
        return paged(all, query, `${root}/issues/${p.issue_number}/comments`);
      }
      case 'issues/create-comment': {
        const comment = {
          id: 1000 + s.comments.length,
          issue: Number(p.issue_number),
          body: String(input.body),
          bot: true,
        };
        s.comments.push(comment);
        return { status: 201, body: this.bodies.commentBody(comment) };
      }
      case 'issues/update-comment': {
        const comment = s.comments.find((candidate) => candidate.id === Number(p.comment_id));
        if (comment === undefined) return NOT_FOUND;
        comment.body = String(input.body);
        return { status: 200, body: this.bodies.commentBody(comment) };
      }
      case 'repos/create-commit-status': {
        const status = {
          sha: p.sha!,
          context: String(input.context ?? 'default'),
          state: String(input.state),
          description: String(input.description ?? ''),
        };
        s.statuses.push(status);
        return { status: 201, body: this.bodies.statusBody(status, s.statuses.length) };
      }
      case 'repos/get-collaborator-permission-level': {
        const permission = s.permissions.get(p.username!) ?? 'read';
        return {
          status: 200,
          body: {
            permission,
            role_name: permission,
            user: { ...this.bodies.user(p.username!), role_name: permission },
          },
        };
      }
      default:
        return undefined;
    }
  }

  /** A file at a ref (a branch or a commit's SHA), base64 as GitHub sends it; 404 for a missing file or ref. */
  private content(path: string, ref: string): Answer {
    const s = this.standIn;
    const sha = s.git.commits.has(ref) ? ref : s.head(ref);
    const text = sha === undefined ? undefined : s.git.commits.get(sha)!.files[path];
    if (text === undefined) return NOT_FOUND;
    const blob = treeShaOf({ [path]: text });
    const url = `${s.url}/repos/${OWNER}/${REPO}/contents/${path}?ref=${ref}`;
    const html = `https://github.com/${OWNER}/${REPO}/blob/${ref}/${path}`;
    const git = `${s.url}/repos/${OWNER}/${REPO}/git/blobs/${blob}`;
    return {
      status: 200,
      body: {
        type: 'file',
        encoding: 'base64',
        size: Buffer.byteLength(text),
        name: path.split('/').pop(),
        path,
        content: Buffer.from(text).toString('base64'),
        sha: blob,
        url,
        git_url: git,
        html_url: html,
        download_url: `https://raw.githubusercontent.com/${OWNER}/${REPO}/${ref}/${path}`,
        _links: { self: url, git, html },
      },
    };
  }
}
