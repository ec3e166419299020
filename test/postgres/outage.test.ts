/**
 * PostgreSQL stopped for 15 s under load: a `greenline serve` on the database, a few clients submitting PRs and
 * reading the queue without pause. While the database is down every answer that needs the store is a 503
 * `store_unavailable` with `retry-after`, never another 5xx; `/readyz` says not ready and `/healthz` stays 200. Once
 * PostgreSQL is back (the same Greenline process, never restarted) submits succeed again, and every submit that was
 * answered 200, before, during or after the outage, is there.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, startServer, stop, type Running } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL outage test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const TOKEN = 'acme-secret-token-123456';
const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const CLIENTS = 4;
const OUTAGE_MS = 15_000;

const running: Running[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Answer {
  phase: Phase;
  path: string;
  status: number;
  retryAfter: string | null;
  body: { code?: string; reason?: string; message?: string };
}
type Phase = 'before' | 'down' | 'after';

describe.skipIf(cluster === undefined)('PostgreSQL stopped under load', () => {
  test('503 with retry-after while it is down, no other 5xx, nothing acknowledged lost, recovery without a restart', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'greenline-pg-outage-'));
    dirs.push(dir);
    const server = await startServer({
      GREENLINE_DATA: dir,
      GREENLINE_STORE: url,
      GREENLINE_LEASE_MS: '1500',
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_SIM_CI: 'pass=1,median=0.01,p90=0.03,seed=7',
      GREENLINE_API_TOKENS: `acme:${TOKEN}`,
      GREENLINE_RATE_LIMIT: '1000000',
      GREENLINE_SCRAPE_RATE_LIMIT: '1000000',
    });
    running.push(server);
    expect((await call(server, '/v1/createQueue', TOKEN, { ...QUEUE, concurrency: 3 })).status).toBe(200);

    let phase: Phase = 'before';
    let stopped = false;
    let next = 0;
    const answers: Answer[] = [];
    const acknowledged: number[] = [];
    const ask = async (path: string, body: unknown): Promise<Answer> => {
      const asked = phase;
      let answer: Answer;
      try {
        const response = await call(server, path, TOKEN, body);
        const text = await response.text();
        answer = {
          phase: asked,
          path,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: text === '' ? {} : JSON.parse(text),
        };
      } catch (error) {
        // No answer at all (the connection failed): recorded as status 0, which the test fails on.
        answer = {
          phase: asked,
          path,
          status: 0,
          retryAfter: null,
          body: { message: String((error as Error).cause ?? error) },
        };
        if (server.child.exitCode !== null) stopped = true;
      }
      answers.push(answer);
      return answer;
    };
    const client = async () => {
      while (!stopped) {
        const number = ++next;
        const submitted = await ask('/v1/submitPullRequest', { ...QUEUE, pr: { number } });
        if (submitted.status === 200) acknowledged.push(number);
        await ask('/v1/getQueue', QUEUE);
        // A client told to come back later does so (not a fixed pace: the answer says when).
        if (submitted.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);
    const failed = () =>
      server.child.exitCode === null ? undefined : new Error(`greenline exited:\n${server.stderr().slice(-3000)}`);
    const health = async (path: string) => (await call(server, path, undefined)).status;

    // Load is flowing: some submits acknowledged before the outage.
    await eventually(
      async () => acknowledged.length,
      (n) => {
        const exited = failed();
        if (exited !== undefined) throw exited;
        return n >= 20;
      },
    );
    pgCluster.halt();
    phase = 'down';
    const downAt = Date.now();
    // Every client sees the outage, and the health checks say so, while the database stays down for OUTAGE_MS.
    await eventually(
      async () => answers.filter((answer) => answer.phase === 'down' && answer.status === 503).length,
      (n) => {
        const exited = failed();
        if (exited !== undefined) throw exited;
        const other = answers.find((answer) => answer.status !== 200 && answer.status !== 503);
        if (other !== undefined) throw new Error(`answered ${other.status} ${JSON.stringify(other.body)}`);
        return n >= CLIENTS * 2;
      },
    );
    expect(await health('/readyz')).toBe(503);
    expect(await health('/healthz')).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
    expect(await health('/readyz')).toBe(503);
    pgCluster.resume();
    phase = 'after';
    // Recovery on its own: submits are acknowledged again by the same process.
    const before = acknowledged.length;
    await eventually(
      async () => acknowledged.length,
      (n) => {
        const exited = failed();
        if (exited !== undefined) throw exited;
        return n >= before + 20;
      },
      60_000,
    );
    stopped = true;
    await Promise.all(clients);
    expect(server.child.exitCode).toBeNull();
    expect(await health('/readyz')).toBe(200);

    const down = answers.filter((answer) => answer.status === 503);
    expect(down.length).toBeGreaterThan(0);
    for (const answer of down) {
      expect(answer.body).toMatchObject({ code: 'unavailable', reason: 'store_unavailable' });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    const otherFailures = answers.filter((answer) => answer.status >= 500 && answer.status !== 503);
    expect(
      otherFailures.map((answer) => `${answer.phase} ${answer.path} ${answer.status} ${JSON.stringify(answer.body)}`),
    ).toEqual([]);
    // Nothing but 200 and 503 (no 4xx the outage caused either).
    expect(
      answers
        .filter((answer) => answer.status !== 200 && answer.status !== 503)
        .map((answer) => `${answer.path} ${answer.status} ${JSON.stringify(answer.body)}`),
    ).toEqual([]);

    // Every acknowledged submit is there.
    const listed = new Set<number>();
    let cursor: string | undefined;
    do {
      const page = (await (
        await call(server, '/v1/listPullRequests', TOKEN, {
          ...QUEUE,
          take: 100,
          ...(cursor === undefined ? {} : { cursor }),
        })
      ).json()) as {
        pullRequests: { prNumber: number }[];
        nextCursor?: string | null;
      };
      for (const pr of page.pullRequests) listed.add(pr.prNumber);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(acknowledged.filter((number) => !listed.has(number))).toEqual([]);
    // The queue's driver recovered too (lease, timers, outbox, CI reports held up by the outage): every PR merges.
    const states = async () =>
      Promise.all(
        acknowledged.map(
          async (number) =>
            (
              (await (
                await call(server, '/v1/getSubmittedPullRequest', TOKEN, { ...QUEUE, pr: { number } })
              ).json()) as { state: string }
            ).state,
        ),
      );
    await eventually(
      async () => (await states()).filter((state) => state !== 'MERGED').length,
      (n) => n === 0,
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${server.stderr().slice(-3000)}`);
    });
    console.log(
      `outage: ${answers.length} answers; ${down.length} 503 (all with retry-after); ${acknowledged.length} submits acknowledged, ` +
        `${acknowledged.length - before} after recovery, all listed`,
    );
    await pgCluster.dropDatabase(url);
  });
});
