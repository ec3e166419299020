/**
 * The conformance suite's only way to the server: HTTP, as any client of the API. Every call is kept (method, path,
 * body, status, answer) so that a failure can be printed as the curl commands that reproduce it.
 */

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  status: number;
  answer: unknown;
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export class ApiClient {
  /** Every call made, in order (a scenario takes its slice: `mark` and `since`). */
  readonly calls: Call[] = [];

  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** POST /v1/`path` with a JSON body. */
  async post<T = Record<string, unknown>>(
    path: string,
    body: unknown,
    token: string | null = this.token,
  ): Promise<Answer<T>> {
    for (;;) {
      const response = await fetch(`${this.base()}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token === null ? {} : { 'x-api-token': token }) },
        body: JSON.stringify(body),
      });
      // Over the server's rate limit: wait as it asks, and send the same call again (not a finding of the suite).
      if (response.status === 429) {
        await response.arrayBuffer();
        await new Promise((resolve) =>
          setTimeout(resolve, 1000 * Math.min(60, Number(response.headers.get('retry-after') ?? '1') || 1)),
        );
        continue;
      }
      return this.keep('POST', path, body, response);
    }
  }

  /** GET /v1/`path` (the metrics endpoint). */
  async get<T = string>(path: string, token: string | null = this.token): Promise<Answer<T>> {
    const response = await fetch(`${this.base()}/${path}`, { headers: token === null ? {} : { 'x-api-token': token } });
    return this.keep('GET', path, undefined, response);
  }

  /** The session cookie of the dashboard, once signed in with the token (`page`). */
  private session: string | undefined;

  /**
   * A page of the web dashboard (e.g. `/charts`), as a person signed in with the token sees it: the dashboard is
   * where some of the service's state is shown (the bisections' states, on the state charts page).
   */
  async page(path: string): Promise<string> {
    const root = this.base().replace(/\/v1$/, '');
    if (this.session === undefined) {
      const signin = await fetch(`${root}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: this.token }).toString(),
        redirect: 'manual',
      });
      await signin.arrayBuffer();
      this.session = signin.headers.get('set-cookie')?.split(';')[0];
      if (this.session === undefined) throw new Error(`signing in to the dashboard answered ${signin.status}`);
    }
    const response = await fetch(`${root}${path}`, { headers: { cookie: this.session } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return text;
  }

  /** Where the calls of a scenario begin. */
  mark(): number {
    return this.calls.length;
  }

  since(mark: number): Call[] {
    return this.calls.slice(mark);
  }

  /** The calls as curl commands (the token as $GREENLINE_TOKEN, never printed), with what each answered. */
  curl(calls: readonly Call[]): string {
    return calls
      .map((call) => {
        const data =
          call.body === undefined
            ? ''
            : ` -H 'content-type: application/json' -d '${JSON.stringify(call.body).replaceAll("'", "'\\''")}'`;
        const answer =
          typeof call.answer === 'string' ? call.answer.slice(0, 200) : JSON.stringify(call.answer)?.slice(0, 200);
        return `curl -s -X ${call.method} '${this.base()}/${call.path}' -H "x-api-token: $GREENLINE_TOKEN"${data}\n  # → ${call.status} ${answer ?? ''}`;
      })
      .join('\n');
  }

  private base(): string {
    const trimmed = this.url.replace(/\/+$/, '');
    return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
  }

  private async keep<T>(method: 'GET' | 'POST', path: string, body: unknown, response: Response): Promise<Answer<T>> {
    const text = await response.text();
    let answer: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        answer = JSON.parse(text);
      } catch {
        answer = text;
      }
    }
    this.calls.push({ method, path, ...(body === undefined ? {} : { body }), status: response.status, answer });
    return { status: response.status, body: answer as T };
  }
}
