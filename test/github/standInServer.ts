/**
 * The HTTP side of the GitHub stand-in (standIn.ts): a server on loopback that checks every exchange against GitHub's
 * OpenAPI description (githubOpenApi.ts: a request GitHub would reject is answered 422, a query it would not honour
 * or an answer it could not give is recorded, and every violation fails the test), and plays GitHub's bad days:
 * faults by method and path, an outage (503 to everything) and a hang. What it answers is the subclass's `respond`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitHubOpenApi, type MatchedOperation } from './githubOpenApi.js';
import type { Answer } from './standInAnswers.js';
import type { Exchange, Fault } from './standInTypes.js';

let openApi: GitHubOpenApi | undefined;

export abstract class StandInServer {
  readonly exchanges: Exchange[] = [];
  readonly violations: string[] = [];
  readonly faults: Fault[] = [];
  /** While it answers true, GitHub is down: every request is a 503. */
  outage: () => boolean = () => false;
  /** While set, GitHub hangs: every request waits for it before it is answered (`held` counts them). */
  hold: Promise<void> | undefined;
  held = 0;
  private readonly api: GitHubOpenApi;
  private server: Server | undefined;
  url = '';

  constructor() {
    openApi ??= new GitHubOpenApi();
    this.api = openApi;
  }

  /** GitHub's answer to a request for a documented operation that passed the checks and no fault caught. */
  protected abstract respond(
    request: IncomingMessage,
    match: MatchedOperation,
    body: Record<string, unknown> | undefined,
    url: URL,
  ): Answer;

  async listen(): Promise<string> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        this.violations.push(
          `${request.method} ${request.url}: the stand-in failed: ${(error as Error).stack ?? String(error)}`,
        );
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

  fail(fault: Omit<Fault, 'times'> & { times?: number }): void {
    this.faults.push({ times: 1, ...fault });
  }

  count(operationId: string, status?: number): number {
    return this.exchanges.filter(
      (exchange) => exchange.operationId === operationId && (status === undefined || exchange.status === status),
    ).length;
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
      if (queryProblem !== undefined)
        this.violations.push(`${method} ${match.template}: GitHub would not honour the query: ${queryProblem}`);
      const problem = this.api.checkRequest(match, body);
      const fault = this.outage()
        ? { method, path: /./, status: 503, times: 1, body: { message: 'Service unavailable' } }
        : this.faults.find(
            (candidate) => candidate.method === method && candidate.path.test(url.pathname) && candidate.times > 0,
          );
      if (problem !== undefined) {
        this.violations.push(`${method} ${match.template}: GitHub would reject the request: ${problem}`);
        answer = {
          status: 422,
          body: { message: `Invalid request: ${problem}`, documentation_url: 'https://docs.github.com/rest' },
        };
      } else if (fault !== undefined) {
        fault.times--;
        if (fault.afterActing === true) this.respond(request, match, body, url);
        // Rate limits and outages are GitHub-wide answers, not documented per operation.
        checked = false;
        answer = {
          status: fault.status,
          body: fault.body ?? { message: 'fault' },
          ...(fault.headers === undefined ? {} : { headers: fault.headers }),
        };
      } else {
        answer = this.respond(request, match, body, url);
        if (answer.githubWide === true) checked = false;
      }
      if (checked) {
        const wrong = this.api.checkResponse(match, answer.status, answer.body);
        if (wrong !== undefined)
          this.violations.push(`${method} ${match.template} ${answer.status}: GitHub could not answer this: ${wrong}`);
      }
      this.exchanges.push({ method, path: url.pathname, operationId: match.operationId, status: answer.status });
    }
    response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }
}
