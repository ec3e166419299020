/**
 * The API from a terminal: which service and token (flags, then the environment, then `greenline login`'s), a POST
 * with the JSON body, and the answer printed as JSON (stdout) or as the error's status and message (stderr, exit 1).
 */
import { readCredentials } from './credentials.js';
import { UsageError } from './usage.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface Target {
  url: string;
  token: string | undefined;
}

/** The service: --url, $GREENLINE_URL, the last login's, else the default. Without a trailing slash. */
export function serviceUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag || env.GREENLINE_URL || readCredentials(env).current || DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(parsed.protocol);
  } catch {
    throw new UsageError(`"${url}" is not an http(s) URL of the service`);
  }
  return url.replace(/\/+$/, '');
}

export function target(values: { url?: string; token?: string }, env: NodeJS.ProcessEnv): Target {
  const url = serviceUrl(values.url, env);
  return { url, token: values.token || env.GREENLINE_TOKEN || readCredentials(env).services[url]?.token };
}

export interface Answer {
  status: number;
  body: unknown;
}

/** One call; an unreachable service is an Error whose message says where it looked. */
export async function call(to: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (to.token !== undefined) headers['x-api-token'] = to.token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${to.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`cannot reach ${to.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: shown as it came
  }
  return { status: response.status, body: parsed };
}

/** One call, printed as the command's result (report); an unreachable service is said so on stderr (exit 1). */
export async function callAndReport(to: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<number> {
  let answer: Answer;
  try {
    answer = await call(to, method, path, body);
  } catch (error) {
    console.error(`greenline: ${(error as Error).message} (set GREENLINE_URL or pass --url)`);
    return 1;
  }
  return report(answer);
}

/** Prints an answer as the command's result: JSON on stdout for a 2xx (0), the error on stderr otherwise (1). */
export function report(answer: Answer): number {
  if (answer.status >= 200 && answer.status < 300) {
    console.log(JSON.stringify(answer.body, null, 2));
    return 0;
  }
  const error = answer.body as {
    reason?: string;
    code?: string;
    message?: string;
    details?: { field: string; message: string }[];
  };
  const lines = [
    `greenline: ${answer.status} ${error.reason ?? error.code ?? ''}: ${error.message ?? String(answer.body)}`,
  ];
  for (const detail of error.details ?? []) lines.push(`  ${detail.field}: ${detail.message}`);
  if (answer.status === 401) lines.push('  (set GREENLINE_TOKEN, pass --token, or sign in with greenline login)');
  console.error(lines.join('\n'));
  return 1;
}
