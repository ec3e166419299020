/**
 * A GitHub stand-in on loopback: one repository (the webhook examples' Codertocat/Hello-World) with real commits,
 * pull requests, comments, statuses, branch protection and rulesets, answering the REST operations the GitHub
 * provider uses. Every request and every response is checked against GitHub's OpenAPI description
 * (githubOpenApi.ts): a request GitHub would reject is answered 422 and recorded as a violation, which fails the test.
 */
import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitModel, type Commit, type Files } from './gitModel.js';
import { GitHubOpenApi, type MatchedOperation } from './githubOpenApi.js';
import { StandInLabels } from './standInLabels.js';
import { NOT_FOUND, type Answer } from './standInAnswers.js';
import { StandInReviews } from './standInReviews.js';
import { StandInGitData } from './standInGitData.js';
import { StandInPulls } from './standInPulls.js';
import { INSTALLATION_ID, OWNER, REPO, StandInBodies } from './standInBodies.js';

export { OWNER, REPO };

export interface Pull {
  number: number;
  title: string;
  author: string;
  head: string;
  headRef: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  /** GitHub computes mergeability in the background: null until the first read after a change has "computed" it. */
  mergeableComputed: boolean;
}

export interface Fault {
  method: string;
  path: RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  times: number;
}

export interface Exchange {
  method: string;
  path: string;
  operationId: string;
  status: number;
}

let openApi: GitHubOpenApi | undefined;

export class GitHubStandIn {
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
  readonly reviews = new StandInReviews(
    () => this.url,
    (login) => this.bodies.user(login),
  );
  readonly exchanges: Exchange[] = [];
  readonly violations: string[] = [];
  readonly faults: Fault[] = [];
  /** While it answers true, GitHub is down: every request is a 503. */
  outage: () => boolean = () => false;
  /** While set, GitHub hangs: every request waits for it before it is answered (`held` counts them). */
  hold: Promise<void> | undefined;
  held = 0;
  private readonly tokens = new Set<string>();
  private readonly api: GitHubOpenApi;
  private server: Server | undefined;
  url = '';

  constructor(private readonly publicKeyPem: string) {
    openApi ??= new GitHubOpenApi();
    this.api = openApi;
  }

  async listen(): Promise<string> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        this.violations.push(`${request.method} ${request.url}: the stand-in failed: ${(error as Error).stack ?? String(error)}`);
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: 'stand-in failure' }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
  }

  // What tests do on "GitHub"

  /** A commit on a branch (a person's push), moving the branch. */
  push(branch: string, change: Files, message = `change ${Object.keys(change).join(', ')}`, author = 'Codertocat'): Commit {
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
    const pull: Pull = { number, title, author, head: commit.sha, headRef, base, draft: false, state: 'open', merged: false, mergeableComputed: false };
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

  head(branch: string): string | undefined {
    return this.git.refs.get(`heads/${branch}`);
  }

  files(branch: string): Files | undefined {
    const sha = this.head(branch);
    return sha === undefined ? undefined : this.git.commits.get(sha)!.files;
  }

  fail(fault: Omit<Fault, 'times'> & { times?: number }): void {
    this.faults.push({ times: 1, ...fault });
  }

  count(operationId: string, status?: number): number {
    return this.exchanges.filter((exchange) => exchange.operationId === operationId && (status === undefined || exchange.status === status)).length;
  }

  // The HTTP side

  /** Moves a ref, as GitHub does: a PR whose head reaches its base branch is merged, and mergeability is computed again. */
  setRef(ref: string, sha: string): void {
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

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (this.hold !== undefined) {
      this.held++;
      await this.hold;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = request.method ?? 'GET';
    const match = this.api.match(method, url.pathname);
    let answer: Answer;
    let checked = true;
    if (match === undefined) {
      this.violations.push(`${method} ${url.pathname}: no such operation in GitHub's API`);
      answer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
    } else {
      const body = text === '' ? undefined : JSON.parse(text);
      const problem = this.api.checkRequest(match, body);
      const fault = this.outage()
        ? { method, path: /./, status: 503, times: 1, body: { message: 'Service unavailable' } }
        : this.faults.find((candidate) => candidate.method === method && candidate.path.test(url.pathname) && candidate.times > 0);
      if (problem !== undefined) {
        this.violations.push(`${method} ${match.template}: GitHub would reject the request: ${problem}`);
        answer = { status: 422, body: { message: `Invalid request: ${problem}`, documentation_url: 'https://docs.github.com/rest' } };
      } else if (fault !== undefined) {
        fault.times--;
        // Rate limits and outages are GitHub-wide answers, not documented per operation.
        checked = false;
        answer = { status: fault.status, body: fault.body ?? { message: 'fault' }, ...(fault.headers === undefined ? {} : { headers: fault.headers }) };
      } else {
        answer = this.authorized(request, match) ?? this.answer(match, body, url.searchParams);
        if (answer.githubWide === true) checked = false;
      }
      if (checked) {
        const wrong = this.api.checkResponse(match, answer.status, answer.body);
        if (wrong !== undefined) this.violations.push(`${method} ${match.template} ${answer.status}: GitHub could not answer this: ${wrong}`);
      }
      this.exchanges.push({ method, path: url.pathname, operationId: match.operationId, status: answer.status });
    }
    response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }

  /** The App authenticates with a JWT signed by its private key; installations with the tokens handed out. */
  private authorized(request: IncomingMessage, match: MatchedOperation): Answer | undefined {
    const header = request.headers.authorization ?? '';
    const appLevel = match.template.startsWith('/app/') || match.template === '/repos/{owner}/{repo}/installation';
    if (appLevel) {
      const jwt = /^bearer (.+)$/i.exec(header)?.[1];
      const parts = jwt?.split('.') ?? [];
      const signed = parts.length === 3 && verify('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), createPublicKey(this.publicKeyPem), Buffer.from(parts[2]!, 'base64url'));
      if (!signed) return { status: 401, body: { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' } };
      return undefined;
    }
    const token = /^(?:token|bearer) (.+)$/i.exec(header)?.[1];
    if (token === undefined || !this.tokens.has(token)) return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
    return undefined;
  }

  private answer(match: MatchedOperation, body: Record<string, unknown> | undefined, query: URLSearchParams): Answer {
    const p = match.params;
    if (p.owner !== undefined && (p.owner.toLowerCase() !== OWNER.toLowerCase() || p.repo?.toLowerCase() !== REPO.toLowerCase())) return NOT_FOUND;
    const input = body ?? {};
    switch (match.operationId) {
      case 'apps/get-repo-installation':
        return this.installed ? { status: 200, body: this.bodies.installationBody() } : NOT_FOUND;
      case 'apps/create-installation-access-token': {
        if (!this.installed || Number(p.installation_id) !== INSTALLATION_ID) return NOT_FOUND;
        const token = `ghs_standin${this.tokens.size}`;
        this.tokens.add(token);
        return { status: 201, body: { token, expires_at: '2099-01-01T00:00:00Z', permissions: { contents: 'write' }, repository_selection: 'selected' } };
      }
      case 'repos/get-branch': {
        const sha = this.head(p.branch!);
        if (sha === undefined) return NOT_FOUND;
        return { status: 200, body: this.bodies.branchBody(p.branch!, sha) };
      }
      case 'repos/get-branch-rules': {
        const required = this.rulesets.get(p.branch!) ?? [];
        const rules =
          required.length === 0
            ? []
            : [
                {
                  type: 'required_status_checks',
                  ruleset_source_type: 'Repository',
                  ruleset_source: `${OWNER}/${REPO}`,
                  ruleset_id: 42,
                  parameters: { strict_required_status_checks_policy: false, required_status_checks: required.map((context) => ({ context })) },
                },
              ];
        return { status: 200, body: [...rules, ...this.reviews.rules(p.branch!)] };
      }
      case 'issues/list-comments': {
        const page = Number(query.get('page') ?? '1');
        const perPage = Number(query.get('per_page') ?? '30');
        const all = this.comments.filter((comment) => comment.issue === Number(p.issue_number));
        return { status: 200, body: all.slice((page - 1) * perPage, page * perPage).map((comment) => this.bodies.commentBody(comment)) };
      }
      case 'issues/create-comment': {
        const comment = { id: 1000 + this.comments.length, issue: Number(p.issue_number), body: String(input.body), bot: true };
        this.comments.push(comment);
        return { status: 201, body: this.bodies.commentBody(comment) };
      }
      case 'issues/update-comment': {
        const comment = this.comments.find((candidate) => candidate.id === Number(p.comment_id));
        if (comment === undefined) return NOT_FOUND;
        comment.body = String(input.body);
        return { status: 200, body: this.bodies.commentBody(comment) };
      }
      case 'repos/create-commit-status': {
        const status = { sha: p.sha!, context: String(input.context ?? 'default'), state: String(input.state), description: String(input.description ?? '') };
        this.statuses.push(status);
        return { status: 201, body: this.bodies.statusBody(status, this.statuses.length) };
      }
      case 'repos/get-collaborator-permission-level': {
        const permission = this.permissions.get(p.username!) ?? 'read';
        return { status: 200, body: { permission, role_name: permission, user: { ...this.bodies.user(p.username!), role_name: permission } } };
      }
      default: {
        const answered =
          this.gitData.answer(match.operationId, p, input) ??
          this.pullsApi.answer(match.operationId, p, input, query) ??
          this.labels.answer(match.operationId, p, input) ??
          this.reviews.answer(match.operationId, p, query);
        if (answered !== undefined) return answered;
        this.violations.push(`${match.method} ${match.template}: the stand-in does not answer ${match.operationId}`);
        return NOT_FOUND;
      }
    }
  }
}
