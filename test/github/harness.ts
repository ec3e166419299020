/**
 * A Greenline in GitHub mode against the stand-in: the real Fastify app (webhooks at POST /github/webhooks), the
 * engine on a virtual clock, the GitHub provider with Octokit over loopback HTTP to the stand-in.
 */
import { generateKeyPairSync } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildServer } from '../../api/server.js';
import { Engine, type QueueKey } from '../../engine/engine.js';
import type { QueuePatch } from '../../engine/model/queues.js';
import { GitHubApp } from '../../engine/providers/github/client.js';
import { GitHubHost } from '../../engine/providers/github/githubHost.js';
import { GitHubWebhookReceiver } from '../../engine/providers/github/webhookReceiver.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';
import { GitHubStandIn, OWNER, REPO } from './standIn.js';
import { example, signedDelivery } from './webhookExamples.js';
import { webhookSchemas } from './webhookSchemas.js';
import { gitHubWebhookRoute } from '../../hosts/github/webhookRoute.js';

export const SECRET = 'webhook-secret-for-tests';
export const PUBLIC_URL = 'https://greenline.example.com';
/** How often the `greenline` check runs are written (the engine's clock). */
export const CHECK_RUN_THROTTLE_MS = 10_000;
export const KEY: QueueKey = { org: 'acme', repo: { host: 'github.com', owner: OWNER, name: REPO }, branch: 'main' };
const START = Date.parse('2026-11-22T12:00:00.000Z');

export const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

export class GitHubQueue {
  readonly errors: string[] = [];
  readonly key = KEY;
  engine!: Engine;
  app!: FastifyInstance;
  host!: GitHubHost;
  receiver!: GitHubWebhookReceiver;

  private constructor(
    readonly github: GitHubStandIn,
    readonly store: Store,
    readonly clock: VirtualScheduler,
  ) {}

  static async create(): Promise<GitHubQueue> {
    const github = new GitHubStandIn(keys.publicKey);
    await github.listen();
    const queue = new GitHubQueue(github, createMemoryStore(), new VirtualScheduler(START));
    await queue.boot();
    return queue;
  }

  /** Starts (or, after `halt`, starts again) the service on the same store. */
  async boot(): Promise<void> {
    const client = new GitHubApp({
      appId: '1',
      privateKey: keys.privateKey,
      baseUrl: this.github.url,
      retries: 0,
      // A GitHub that hangs (the stand-in's `hold`) fails a request after this (real time).
      requestTimeoutMs: 2_000,
      // Writes one at a time but without GitHub's spacing (a second between writes, three between writes that notify
      // people: comments, labels, merges); a second of retry-after is a millisecond here.
      throttle: {
        write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
        notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
        retryAfterBaseValue: 1,
      },
    });
    this.host = new GitHubHost(client);
    this.engine = new Engine(this.store, {
      scheduler: this.clock,
      gitHost: this.host,
      onError: (message, error) => this.errors.push(`${message}: ${(error as Error).message}`),
    });
    this.engine.start();
    this.receiver = new GitHubWebhookReceiver(
      this.engine,
      client,
      this.host,
      SECRET,
      'github.com',
      (message, error) => this.errors.push(`${message}: ${(error as Error).message}`),
      {
        publicUrl: () => PUBLIC_URL,
        throttleMs: CHECK_RUN_THROTTLE_MS,
      },
    );
    this.receiver.start();
    this.app = await buildServer({ engine: this.engine, routes: [gitHubWebhookRoute(this.receiver)] });
  }

  /** Stops the service as a crash would leave it: the store keeps what was committed. */
  async halt(): Promise<void> {
    // As `greenline serve` stops: a delivery being applied goes back to the inbox.
    this.receiver.stop();
    this.engine.stop();
    await this.receiver.settle();
    await this.engine.settle();
    await this.app.close();
  }

  async close(): Promise<void> {
    await this.halt();
    await this.store.close();
    await this.github.close();
  }

  createQueue(patch: QueuePatch = {}): void {
    this.engine.createQueue(KEY, patch);
  }

  /** Both the engine's effects and the webhook deliveries being applied are done (retry timers aside). */
  async settle(): Promise<void> {
    await this.receiver.settle();
    await this.engine.settle();
  }

  /** Lets every effect and delivery finish, moving the clock past the backoff while they wait to be retried. */
  async drive(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      await this.settle();
      if (this.store.read((tx) => tx.count('outbox') + tx.count('webhookInbox')) === 0) return;
      this.clock.advanceBy(60_000);
    }
    throw new Error(`effects still waiting after 200 rounds: ${this.errors.slice(-3).join(' | ')}`);
  }

  /** Moves the clock past the check runs' throttle, and lets them be written. */
  async publishCheckRuns(): Promise<void> {
    this.clock.advanceBy(CHECK_RUN_THROTTLE_MS);
    await this.settle();
  }

  /** Delivers a webhook and lets every effect it causes finish. */
  async deliver(name: string, payload: unknown, id?: string, secret = SECRET): Promise<LightMyRequestResponse> {
    const response = await this.send(name, payload, id, secret);
    await this.drive();
    return response;
  }

  /** Delivers a webhook and lets effects run once, without moving the clock: a failed one waits for its retry. */
  async send(name: string, payload: unknown, id?: string, secret = SECRET): Promise<LightMyRequestResponse> {
    // What the test made of GitHub's example must still be a payload GitHub could send.
    const wrong = webhookSchemas().check(name, payload, exampleOf(name, payload));
    if (wrong !== undefined)
      this.github.violations.push(`webhook ${name}: GitHub could not send this payload: ${wrong}`);
    const delivery = await signedDelivery(secret, name, payload, id);
    const response = await this.app.inject({
      method: 'POST',
      url: '/github/webhooks',
      headers: delivery.headers,
      payload: delivery.body,
    });
    await this.settle();
    return response;
  }

  /** `issue_comment.created` on a PR, from GitHub's example. */
  commentPayload(number: number, body: string, login = OWNER): Record<string, unknown> {
    const payload = example('issue_comment', 'created');
    payload.issue.number = number;
    payload.issue.pull_request = { url: `${this.github.url}/repos/${OWNER}/${REPO}/pulls/${number}` };
    payload.comment.body = body;
    payload.comment.user = { ...payload.comment.user, login, type: 'User' };
    return payload;
  }

  checkSuitePayload(sha: string, conclusion: string, app = 'ci'): Record<string, unknown> {
    const payload = example('check_suite', 'completed');
    payload.check_suite.head_sha = sha;
    payload.check_suite.conclusion = conclusion;
    payload.check_suite.app = { ...payload.check_suite.app, name: app };
    return payload;
  }

  pullRequestPayload(action: string, number: number): ReturnType<typeof example> {
    const payload = example('pull_request', action);
    const pull = this.github.pulls.get(number)!;
    payload.number = number;
    payload.pull_request.number = number;
    payload.pull_request.head.sha = pull.head;
    payload.pull_request.base.ref = pull.base;
    return payload;
  }

  pr(number: number) {
    return this.engine.getSubmittedPullRequest(KEY, number).pr;
  }

  runOf(number: number) {
    const runId = this.pr(number).runId;
    if (runId === null)
      throw new Error(`#${number} has no run (${this.pr(number).state}: ${this.pr(number).reason ?? ''})`);
    return this.engine.getTestRun(KEY, runId).run;
  }

  inputs(type: string): unknown[] {
    const queueId = this.engine.getQueue(KEY).queue.id;
    return this.engine.eventLog(queueId).filter((event) => event.input.type === type);
  }
}

/** GitHub's example the payload was made from (its event and action), when there is one. */
function exampleOf(name: string, payload: unknown): unknown {
  const action = (payload as { action?: unknown } | null)?.action;
  try {
    return example(name, typeof action === 'string' ? action : undefined);
  } catch {
    return undefined;
  }
}
