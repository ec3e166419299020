/**
 * `greenline upload`: sends a CI job's JUnit XML reports to POST /v1/flaky-tests/upload and prints the counts.
 * Exit status: 0 uploaded, 1 the upload failed (server answer or network), 2 usage (no files, bad arguments).
 * A 503 or an unreachable service is tried again, with the same body (sendWithRetries).
 */
import { spawnSync } from 'node:child_process';
import { readFile, realpath, stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';

export { UPLOAD_HELP } from './helpTexts.js';

export interface UploadArgs {
  junit: string;
  repo: string;
  sha: string;
  branch?: string;
  prNumber?: number;
  variant?: string;
  url?: string;
  token?: string;
  orgSlug?: string;
  /** Path of a CODEOWNERS file to send along. */
  codeowners?: string;
  /** The repository's root on this runner; default: the git work tree around the current folder, else that folder. */
  repoRoot?: string;
}

/** The root of the git work tree holding `folder`, or undefined when it is in none (or git is missing). */
export function gitWorkTreeOf(folder: string): string | undefined {
  const found = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: folder, encoding: 'utf8' });
  const root = found.status === 0 ? found.stdout.trim() : '';
  return root === '' ? undefined : root;
}

/** The repository root the upload names: --repo-root, else the git work tree around the current folder, else it. */
export async function repoRootFor(given: string | undefined, cwd = process.cwd()): Promise<string> {
  if (given !== undefined) {
    const root = resolve(cwd, given);
    const info = await stat(root).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) throw new UploadUsageError(`--repo-root ${given}: not a folder`);
    return await realpath(root);
  }
  return gitWorkTreeOf(cwd) ?? (await realpath(cwd));
}

export class UploadUsageError extends Error {}

/** `host/owner/name`, `owner/name` or `https://host/owner/name(.git)` → the spec's repo object. */
export function parseRepoArgument(text: string): { host: string; owner: string; name: string } {
  const cleaned = text
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/^[^@/]*@/, '')
    .replace(/^([^/:]+):(?!\d)/, '$1/') // scp-like git@host:owner/name
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  const parts = cleaned.split('/').filter((part) => part !== '');
  const hasHost = parts.length >= 3 && /[.:]/.test(parts[0] ?? '');
  const host = hasHost ? (parts.shift() as string) : 'github.com';
  const name = parts.pop();
  if (name === undefined || parts.length === 0) {
    throw new UploadUsageError(`--repo "${text}": expected host/owner/name, owner/name or the repository's URL`);
  }
  return { host, owner: parts.join('/'), name };
}

function defaultBranch(env: NodeJS.ProcessEnv): string {
  return env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || 'main';
}

interface UploadAnswer {
  upload_id: string;
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  infrastructure_failure: boolean;
  already_stored?: boolean;
}

/** How many times an upload is sent at most: a 503 (the service restarting) or an unreachable service is tried again. */
export const UPLOAD_ATTEMPTS = 4;
const MAX_WAIT_SECONDS = 60;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends the upload; on a 503 (the service shutting down: what it stored of the upload is kept) or when the service
 * cannot be reached, waits (its `retry-after`, else 2, 4, 8 s) and sends the same body again. The service knows the
 * upload by its content, so a send that was stored in part or in full is completed or answered, never counted twice.
 */
async function sendWithRetries(
  url: string,
  token: string,
  body: string,
  wait: (ms: number) => Promise<void>,
): Promise<{ response: Response; text: string } | Error> {
  for (let attempt = 1; ; attempt++) {
    let outcome: { response: Response; text: string } | Error;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': token },
        body,
      });
      outcome = { response, text: await response.text() };
    } catch (error) {
      outcome = error as Error;
    }
    const unavailable = outcome instanceof Error || outcome.response.status === 503;
    if (!unavailable || attempt >= UPLOAD_ATTEMPTS) return outcome;
    const told = outcome instanceof Error ? Number.NaN : Number(outcome.response.headers.get('retry-after'));
    const seconds = Number.isFinite(told) && told >= 0 ? Math.min(told, MAX_WAIT_SECONDS) : 2 ** attempt;
    const why =
      outcome instanceof Error ? `cannot reach the service (${outcome.message})` : 'the service is unavailable (503)';
    console.error(
      `greenline upload: ${why}; sending again in ${seconds} s (attempt ${attempt + 1} of ${UPLOAD_ATTEMPTS})`,
    );
    await wait(seconds * 1000);
  }
}

/** `sleep`: how the waits between attempts are made (tests record them instead). */
export async function uploadCommand(
  args: UploadArgs,
  options: { sleep?: (ms: number) => Promise<void> } = {},
): Promise<number> {
  const env = process.env;
  try {
    const token = args.token ?? env.GREENLINE_TOKEN;
    if (token === undefined || token === '')
      throw new UploadUsageError('no API token: pass --token or set GREENLINE_TOKEN');
    if (!/^[0-9a-fA-F]{7,64}$/.test(args.sha)) throw new UploadUsageError(`--sha "${args.sha}" is not a commit SHA`);
    const repo = parseRepoArgument(args.repo);
    const patterns = args.junit
      .split(',')
      .map((pattern) => pattern.trim())
      .filter((pattern) => pattern !== '');
    if (patterns.length === 0) throw new UploadUsageError('--junit: give a glob of report files');
    const files = (await glob(patterns, { absolute: true, onlyFiles: true })).sort();
    if (files.length === 0) throw new UploadUsageError(`no file matches --junit ${args.junit}`);
    const reports = await Promise.all(
      files.map(async (file) => ({ file: relative(process.cwd(), file) || file, xml: await readFile(file, 'utf8') })),
    );
    const body: Record<string, unknown> = {
      repo,
      commit_sha: args.sha,
      branch: args.branch ?? defaultBranch(env),
      reports,
      repo_root: await repoRootFor(args.repoRoot),
    };
    if (args.orgSlug !== undefined) body.org_url_slug = args.orgSlug;
    if (args.prNumber !== undefined) body.pr_number = args.prNumber;
    if (args.variant !== undefined) body.variant = args.variant;
    if (args.codeowners !== undefined) body.codeowners = await readFile(args.codeowners, 'utf8');
    const base = (args.url ?? env.GREENLINE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');

    const sent = await sendWithRetries(
      `${base}/v1/flaky-tests/upload`,
      token,
      JSON.stringify(body),
      options.sleep ?? sleep,
    );
    if (sent instanceof Error) {
      console.error(`greenline upload: cannot reach ${base}: ${sent.message}`);
      return 1;
    }
    const { response, text } = sent;
    if (!response.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON: show it as it is
      }
      console.error(`greenline upload: the service answered ${response.status}: ${message}`);
      return 1;
    }
    const answer = JSON.parse(text) as UploadAnswer;
    console.log(
      `Uploaded ${reports.length} report${reports.length === 1 ? '' : 's'} (upload ${answer.upload_id}): ` +
        `${answer.tests} tests, ${answer.passed} passed, ${answer.failed} failed, ${answer.skipped} skipped` +
        (answer.infrastructure_failure ? ' — marked as an infrastructure failure (left out of detection)' : '') +
        (answer.already_stored === true
          ? ' — stored by an earlier send of the same reports: nothing was counted again'
          : ''),
    );
    return 0;
  } catch (error) {
    if (error instanceof UploadUsageError) {
      console.error(`greenline upload: ${error.message}`);
      return 2;
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EACCES') {
      console.error(`greenline upload: ${(error as Error).message}`);
      return 2;
    }
    throw error;
  }
}
