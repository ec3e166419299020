/**
 * The GitHub App's clients, from the Octokit libraries: `@octokit/app` signs the App's JWTs and creates, caches and
 * renews installation tokens; every request goes through the REST client with the throttling plugin (GitHub's
 * primary and secondary rate limits, waiting `retry-after`), the retry plugin (server errors) and the pagination
 * plugin (`octokit.paginate`, pages of 100 followed by their `link` headers). What still fails is thrown, and the
 * engine's outbox tries the effect again later with its backoff.
 *
 * Installation tokens: `@octokit/auth-app` keeps each for 59 minutes. A token revoked or expired early (the App
 * uninstalled and installed again, its permissions changed, a key rotated) answers 401: the request is then sent once
 * more with a token made anew, rather than failing for the rest of the hour. `installation` and
 * `installation_repositories` events drop the tokens kept (forgetInstallations): the next request makes a new one.
 */
import { App } from '@octokit/app';
import { Octokit as OctokitCore } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { restEndpointMethods } from '@octokit/plugin-rest-endpoint-methods';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import type { RepoRef } from '../../model/queues.js';

export interface GitHubAppOptions {
  appId: string;
  privateKey: string;
  /** The REST API's root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  baseUrl: string;
  /** How many times a request hit by a rate limit is sent again in place (after `retry-after`) before it fails. */
  rateLimitRetries?: number;
  /**
   * Milliseconds per second of `retry-after` (default 1000). Tests shrink it; the plugin also spaces writes, and a
   * test may hand its own write group (`throttle.write`).
   */
  throttle?: Partial<ThrottlingOptions>;
  /** How many times a request that failed with a server error is sent again in place (default 3, the plugin's). */
  retries?: number;
  /**
   * The longest one request to GitHub may take (default 10 s): a GitHub that hangs fails the request, which the
   * retry plugin and then the outbox try again, rather than holding the effect (or a shutdown) for ever.
   */
  requestTimeoutMs?: number;
}

/** fetch, aborted after `ms` (and whenever the caller's own signal aborts). */
function fetchWithTimeout(ms: number): typeof fetch {
  return (input, init) => {
    const limit = AbortSignal.timeout(ms);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, limit]) : limit });
  };
}

const GreenlineOctokit = OctokitCore.plugin(restEndpointMethods, paginateRest, retry, throttling);
export type GitHubClient = InstanceType<typeof GreenlineOctokit>;

export class GitHubApp {
  readonly app: App<{ Octokit: typeof GreenlineOctokit }>;
  /** Installation ids by repository (lower case `owner/name`), forgotten when an installation changes. */
  private readonly installations = new Map<string, number>();
  /** Installations whose kept token is not to be used again: the next client for them makes a new one first. */
  private readonly staleTokens = new Set<number>();
  private readonly knownInstallations = new Set<number>();

  constructor(options: GitHubAppOptions) {
    const retries = options.rateLimitRetries ?? 2;
    const onLimit = (
      retryAfter: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      const again = retryCount < retries;
      console.warn(
        `greenline: GitHub rate limit on ${request.method} ${request.url}: ${again ? `retrying after ${retryAfter} s` : 'giving up for now'}`,
      );
      return again;
    };
    const Octokit = GreenlineOctokit.defaults({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      userAgent: 'greenline',
      request: {
        fetch: fetchWithTimeout(options.requestTimeoutMs ?? 10_000),
        ...(options.retries === undefined ? {} : { retries: options.retries }),
      },
      throttle: { onRateLimit: onLimit, onSecondaryRateLimit: onLimit, ...options.throttle },
    });
    this.app = new App({ appId: options.appId, privateKey: options.privateKey, Octokit });
  }

  /** A client acting as the App's installation on the repository; an error when the App is not installed there. */
  async forRepo(repo: RepoRef): Promise<GitHubClient> {
    const key = `${repo.owner}/${repo.name}`.toLowerCase();
    let id = this.installations.get(key);
    if (id === undefined) {
      try {
        const { data } = await this.app.octokit.request('GET /repos/{owner}/{repo}/installation', {
          owner: repo.owner,
          repo: repo.name,
        });
        id = data.id;
      } catch (error) {
        if ((error as { status?: number }).status === 404) {
          throw new Error(
            `the GitHub App is not installed on ${repo.owner}/${repo.name} (install it, then the queue carries on)`,
          );
        }
        throw error;
      }
      this.installations.set(key, id);
    }
    const installation = id;
    this.knownInstallations.add(installation);
    const octokit = await this.app.getInstallationOctokit(installation);
    const renew = () => octokit.auth({ type: 'installation', refresh: true });
    if (this.staleTokens.delete(installation)) await renew();
    // Outermost (after the auth hook): a 401 is a token GitHub no longer takes; one retry with a new token.
    octokit.hook.wrap('request', async (request, options) => {
      try {
        return await request(options);
      } catch (error) {
        if ((error as { status?: number }).status !== 401) throw error;
        await renew();
        return request(options);
      }
    });
    return octokit;
  }

  /**
   * An installation was added, removed, suspended or changed its repositories (or its permissions): look
   * installations up again, and make new tokens rather than use those kept.
   */
  forgetInstallations(): void {
    this.installations.clear();
    for (const id of this.knownInstallations) this.staleTokens.add(id);
  }
}
