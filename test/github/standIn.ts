/**
 * A GitHub stand-in on loopback: one repository (the webhook examples' Codertocat/Hello-World) with real commits,
 * pull requests, comments, statuses, branch protection and rulesets, answering the REST operations the GitHub
 * provider uses. Every request and every response is checked against GitHub's OpenAPI description
 * (githubOpenApi.ts): a request GitHub would reject is answered 422 and recorded as a violation, which fails the test.
 */
import type { IncomingMessage } from 'node:http';
import { GitModel, type Commit, type Files } from './gitModel.js';
import type { MatchedOperation } from './githubOpenApi.js';
import { StandInLabels } from './standInLabels.js';
import { NOT_FOUND, type Answer } from './standInAnswers.js';
import { StandInReviews } from './standInReviews.js';
import { StandInGitData } from './standInGitData.js';
import { StandInPulls } from './standInPulls.js';
import { INSTALLATION_ID, OWNER, REPO, StandInBodies } from './standInBodies.js';
import { APP_PERMISSIONS } from '../../engine/providers/github/manifest.js';
import { missingPermission, REF_UPDATES, workflowChanges, workflowRefusal } from './standInPermissions.js';
import { StandInRepo } from './standInRepo.js';
import type { Exchange, Fault, Pull } from './standInTypes.js';
import { StandInChecks } from './standInChecks.js';
import { StandInAuth } from './standInAuth.js';
import { StandInServer } from './standInServer.js';

export { OWNER, REPO };

export type { Exchange, Fault, Pull };

export class GitHubStandIn extends StandInServer {
  readonly git = new GitModel();
  readonly pulls = new Map<number, Pull>();
  readonly comments: { id: number; issue: number; body: string; bot: boolean }[] = [];
  readonly statuses: { sha: string; context: string; state: string; description: string }[] = [];
  /** Required status checks of branch protection, and of rulesets, by branch. */
  readonly protection = new Map<string, string[]>();
  readonly rulesets = new Map<string, string[]>();
  /** Branches whose protection requires changes through pull requests: their refs cannot be updated directly. */
  readonly pullRequestsOnly = new Set<string>();
  readonly permissions = new Map<string, string>([['Codertocat', 'admin']]);
  installed = true;
  readonly labels = new StandInLabels(() => this.url);
  private readonly bodies = new StandInBodies(this);
  private readonly gitData = new StandInGitData(this, this.bodies);
  private readonly pullsApi = new StandInPulls(this, this.bodies);
  private readonly repoApi = new StandInRepo(this, this.bodies);
  /** Check runs made through the checks API (Greenline's own `greenline` check run). */
  readonly checks = new StandInChecks(
    () => this.url,
    (sha) => this.pullsOf(sha),
  );
  readonly reviews = new StandInReviews(
    () => this.url,
    (login) => this.bodies.user(login),
  );
  /** The permissions the installation has: the App manifest's, unless a test changes them. */
  granted: Record<string, string> = { ...APP_PERMISSIONS };
  /** The App's JWTs and the installation tokens handed out, with the permissions each carries. */
  private readonly auth: StandInAuth;
  /** The permissions of the request being answered (a ref update checks workflow files against them). */
  private acting: { permissions: Record<string, string>; operationId: string } | undefined;

  constructor(publicKeyPem: string) {
    super();
    this.auth = new StandInAuth(publicKeyPem);
  }

  // What tests do on "GitHub"

  /** A commit on a branch (a person's push), moving the branch. */
  push(
    branch: string,
    change: Files,
    message = `change ${Object.keys(change).join(', ')}`,
    author = 'Codertocat',
  ): Commit {
    const parent = this.git.refs.get(`heads/${branch}`);
    const files = { ...(parent === undefined ? {} : this.git.commits.get(parent)!.files), ...change };
    const commit = this.git.commit(files, parent === undefined ? [] : [parent], message, author);
    this.setRef(`heads/${branch}`, commit.sha);
    return commit;
  }

  openPull(number: number, title: string, change: Files, base = 'main', author = 'Codertocat'): Pull {
    const baseHead = this.git.refs.get(`heads/${base}`)!;
    const headRef = `feature-${number}`;
    this.git.refs.set(`heads/${headRef}`, baseHead);
    const commit = this.push(headRef, change, title, author);
    const pull: Pull = {
      number,
      title,
      author,
      head: commit.sha,
      headRef,
      base,
      draft: false,
      state: 'open',
      merged: false,
      mergeableComputed: false,
    };
    this.pulls.set(number, pull);
    return pull;
  }

  /** A push to a PR's branch. */
  pushToPull(number: number, change: Files): Commit {
    const pull = this.pulls.get(number)!;
    const commit = this.push(pull.headRef, change, `update #${number}`, pull.author);
    pull.head = commit.sha;
    pull.mergeableComputed = false;
    return commit;
  }

  /** The open PRs whose head is this commit. */
  pullsOf(sha: string): Pull[] {
    return [...this.pulls.values()].filter((pull) => pull.state === 'open' && pull.head === sha);
  }

  head(branch: string): string | undefined {
    return this.git.refs.get(`heads/${branch}`);
  }

  files(branch: string): Files | undefined {
    const sha = this.head(branch);
    return sha === undefined ? undefined : this.git.commits.get(sha)!.files;
  }

  /** Every installation token stops working (revoked, or expired early): GitHub answers 401 until a new one is made. */
  revokeTokens(): void {
    this.auth.revoke();
  }

  // The HTTP side

  /** Moves a ref, as GitHub does: a PR whose head reaches its base branch is merged, and mergeability is computed again. */
  setRef(ref: string, sha: string): void {
    if (this.acting !== undefined) {
      // A new branch is compared with the default branch, as GitHub checks the commits it brings.
      const before = this.git.refs.get(ref) ?? this.head('main');
      const changed = workflowChanges(
        before === undefined ? {} : this.git.commits.get(before)!.files,
        this.git.commits.get(sha)!.files,
      );
      const status = this.acting.operationId.startsWith('git/') ? 422 : 403;
      const refusal = workflowRefusal(status, changed, this.acting.permissions);
      if (refusal !== undefined) throw new Refused(refusal);
    }
    this.git.refs.set(ref, sha);
    // GitHub marks a PR merged when its head reaches its base branch.
    for (const pull of this.pulls.values()) {
      if (pull.state === 'open' && ref === `heads/${pull.base}` && this.git.isAncestor(pull.head, sha)) {
        pull.state = 'closed';
        pull.merged = true;
      }
      if (ref === `heads/${pull.base}`) pull.mergeableComputed = false;
    }
  }

  protected respond(
    request: IncomingMessage,
    match: MatchedOperation,
    body: Record<string, unknown> | undefined,
    url: URL,
  ): Answer {
    return this.auth.authorized(request, match) ?? this.permitted(request, match, body, url);
  }

  /** The answer, when the token's permissions allow the operation (a 403 as GitHub gives when they do not). */
  private permitted(
    request: IncomingMessage,
    match: MatchedOperation,
    body: Record<string, unknown> | undefined,
    url: URL,
  ): Answer {
    const appLevel = match.template.startsWith('/app/') || match.template === '/repos/{owner}/{repo}/installation';
    if (appLevel) return this.answer(match, body, url.searchParams);
    const permissions = this.auth.permissionsOf(request);
    const missing = missingPermission(match.operationId, permissions);
    if (missing === 'unknown')
      this.violations.push(
        `${match.method} ${match.template}: the stand-in does not know what permission ${match.operationId} needs`,
      );
    else if (missing !== undefined) return missing;
    this.acting = REF_UPDATES.has(match.operationId) ? { permissions, operationId: match.operationId } : undefined;
    try {
      return this.answer(match, body, url.searchParams);
    } catch (error) {
      if (error instanceof Refused) return error.answer;
      throw error;
    } finally {
      this.acting = undefined;
    }
  }

  private answer(match: MatchedOperation, body: Record<string, unknown> | undefined, query: URLSearchParams): Answer {
    const p = match.params;
    if (
      p.owner !== undefined &&
      (p.owner.toLowerCase() !== OWNER.toLowerCase() || p.repo?.toLowerCase() !== REPO.toLowerCase())
    )
      return NOT_FOUND;
    const input = body ?? {};
    switch (match.operationId) {
      case 'apps/get-repo-installation':
        return this.installed ? { status: 200, body: this.bodies.installationBody() } : NOT_FOUND;
      case 'apps/create-installation-access-token': {
        if (!this.installed || Number(p.installation_id) !== INSTALLATION_ID) return NOT_FOUND;
        const token = this.auth.issue(this.granted);
        return {
          status: 201,
          body: {
            token,
            expires_at: '2099-01-01T00:00:00Z',
            permissions: { ...this.granted },
            repository_selection: 'selected',
          },
        };
      }
      default: {
        const answered =
          this.repoApi.answer(match.operationId, p, input, query) ??
          this.checks.answer(match.operationId, p, input, query) ??
          this.gitData.answer(match.operationId, p, input, query) ??
          this.pullsApi.answer(match.operationId, p, input, query) ??
          this.labels.answer(match.operationId, p, input, query) ??
          this.reviews.answer(match.operationId, p, query);
        if (answered !== undefined) return answered;
        this.violations.push(`${match.method} ${match.template}: the stand-in does not answer ${match.operationId}`);
        return NOT_FOUND;
      }
    }
  }
}

/** A request GitHub refuses part-way (a ref update touching workflows without the permission). */
class Refused extends Error {
  constructor(readonly answer: Answer) {
    super('refused');
  }
}
