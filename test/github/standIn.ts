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
import { APP_PERMISSIONS } from '../../engine/providers/github/manifest.js';
import { missingPermission, REF_UPDATES, workflowChanges, workflowRefusal } from './standInPermissions.js';
import { StandInRepo } from './standInRepo.js';
import type { Exchange, Fault, Pull } from './standInTypes.js';
import { StandInChecks } from './standInChecks.js';

export { OWNER, REPO };

export type { Exchange, Fault, Pull };

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
  readonly exchanges: Exchange[] = [];
  readonly violations: string[] = [];
  readonly faults: Fault[] = [];
  /** While it answers true, GitHub is down: every request is a 503. */
  outage: () => boolean = () => false;
  /** While set, GitHub hangs: every request waits for it before it is answered (`held` counts them). */
  hold: Promise<void> | undefined;
  held = 0;
  /** The permissions the installation has: the App manifest's, unless a test changes them. */
  granted: Record<string, string> = { ...APP_PERMISSIONS };
  /** Installation tokens handed out, with the permissions each carries. */
  private readonly tokens = new Map<string, Record<string, string>>();
  /** The permissions of the request being answered (a ref update checks workflow files against them). */
  private acting: { permissions: Record<string, string>; operationId: string } | undefined;
  private tokensMade = 0;
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
    this.tokens.clear();
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
    if (this.acting !== undefined) {
      // A new branch is compared with the default branch, as GitHub checks the commits it brings.
      const before = this.git.refs.get(ref) ?? this.head('main');
      const changed = workflowChanges(before === undefined ? {} : this.git.commits.get(before)!.files, this.git.commits.get(sha)!.files);
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
      // GitHub caps a page at 100 and ignores what it does not know: a caller would take a cut list for the whole.
      const queryProblem = this.api.checkQuery(match, url.searchParams);
      if (queryProblem !== undefined) this.violations.push(`${method} ${match.template}: GitHub would not honour the query: ${queryProblem}`);
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
        answer = this.authorized(request, match) ?? this.permitted(request, match, body, url);
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
    if (token === undefined || !this.tokens.has(token))
      return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' }, githubWide: true };
    return undefined;
  }

  /** The answer, when the token's permissions allow the operation (a 403 as GitHub gives when they do not). */
  private permitted(request: IncomingMessage, match: MatchedOperation, body: Record<string, unknown> | undefined, url: URL): Answer {
    const appLevel = match.template.startsWith('/app/') || match.template === '/repos/{owner}/{repo}/installation';
    if (appLevel) return this.answer(match, body, url.searchParams);
    const permissions = this.tokens.get(/^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '') ?? {};
    const missing = missingPermission(match.operationId, permissions);
    if (missing === 'unknown') this.violations.push(`${match.method} ${match.template}: the stand-in does not know what permission ${match.operationId} needs`);
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
    if (p.owner !== undefined && (p.owner.toLowerCase() !== OWNER.toLowerCase() || p.repo?.toLowerCase() !== REPO.toLowerCase())) return NOT_FOUND;
    const input = body ?? {};
    switch (match.operationId) {
      case 'apps/get-repo-installation':
        return this.installed ? { status: 200, body: this.bodies.installationBody() } : NOT_FOUND;
      case 'apps/create-installation-access-token': {
        if (!this.installed || Number(p.installation_id) !== INSTALLATION_ID) return NOT_FOUND;
        const token = `ghs_standin${++this.tokensMade}`;
        this.tokens.set(token, { ...this.granted });
        return { status: 201, body: { token, expires_at: '2099-01-01T00:00:00Z', permissions: { ...this.granted }, repository_selection: 'selected' } };
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
