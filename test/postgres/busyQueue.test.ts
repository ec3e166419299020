/**
 * A `greenline serve` process on PostgreSQL while an outside session holds one queue's lock (a stuck transaction of
 * another process, or someone at psql): a request to that queue waits for the lock without blocking the process, so
 * requests to other queues and /healthz are answered meanwhile; once the lock is let go, the waiting request commits.
 * (Before, the process blocked on the lock: every queue stalled until the lock timeout.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { SCOPE_LOCK_KEY } from '../../engine/store/postgres/schema.js';
import { call, eventually, startServer, stop, type Running } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL busy-queue test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const TOKEN = 'acme-secret-token-123456';
const queueOf = (name: string) => ({ repo: { host: 'github.com', owner: 'acme', name }, targetBranch: 'main' });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(cluster === undefined)("one queue's lock held by an outside session", () => {
  test('other queues and /healthz are answered while a request waits for it; it commits once the lock is let go', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const dir = await mkdtemp(join(tmpdir(), 'greenline-pg-busy-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const server: Running = await startServer({
      GREENLINE_DATA: dir,
      GREENLINE_STORE: url,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_API_TOKENS: `acme:${TOKEN}`,
      GREENLINE_RATE_LIMIT: '1000000',
    });
    cleanups.push(() => stop(server, 'SIGKILL'));
    const outside = new pg.Client({ connectionString: url });
    outside.on('error', () => undefined);
    await outside.connect();
    cleanups.push(() => outside.end());
    // pg_stat_activity as of now (in the outside session's transaction it would stay as first read).
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    cleanups.push(() => watcher.end());
    const ids: Record<string, string> = {};
    for (const name of ['held', 'free']) {
      const response = await call(server, '/v1/createQueue', TOKEN, { ...queueOf(name), requiredStatuses: ['ci'] });
      expect(response.status).toBe(200);
      const { rows } = await outside.query<{ id: string }>(
        "SELECT v #>> '{}' AS id FROM greenline_kv WHERE coll = 'queueIndex'",
      );
      ids[name] = rows.map((row) => row.id).find((id) => !Object.values(ids).includes(id)) as string;
    }
    await outside.query('BEGIN');
    await outside.query(`SELECT pg_advisory_xact_lock(${SCOPE_LOCK_KEY})`, [`queue:${ids.held}`]);
    const lockedAt = (await outside.query('SELECT clock_timestamp() AS t')).rows[0]?.t as Date;

    let heldAnswered = false;
    const held = call(server, '/v1/submitPullRequest', TOKEN, { ...queueOf('held'), pr: { number: 1 } }).then(
      async (response) => {
        heldAnswered = true;
        return { status: response.status, body: await response.text() };
      },
    );
    // The request reached the lock: the process's write connection waits for it (before), or tries it and gives up
    // its transaction to try again (now).
    await eventually(
      async () =>
        (
          await watcher.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'greenline-%:w' AND state_change > $1
             AND (wait_event_type = 'Lock' OR query LIKE '%advisory_xact_lock%' OR query = 'ROLLBACK')`,
            [lockedAt],
          )
        ).rows[0]?.n,
      (n) => n > 0,
    );
    // Meanwhile: another queue's submit, a read of the held queue, and /healthz are answered, the held submit still waits.
    const free = await call(server, '/v1/submitPullRequest', TOKEN, { ...queueOf('free'), pr: { number: 1 } });
    expect(free.status).toBe(200);
    const read = await call(server, '/v1/getQueue', TOKEN, queueOf('held'));
    expect(read.status).toBe(200);
    expect((await call(server, '/healthz', undefined)).status).toBe(200);
    expect(heldAnswered).toBe(false);

    await outside.query('COMMIT');
    const answer = await held;
    // Committed once the lock was let go (a 503 only if it was held past the request's 5 s wait).
    if (answer.status !== 200) expect(answer.body).toMatch(/store_unavailable/);
    const retried =
      answer.status === 200
        ? undefined
        : await call(server, '/v1/submitPullRequest', TOKEN, { ...queueOf('held'), pr: { number: 1 } });
    if (retried !== undefined) expect(retried.status).toBe(200);
    const pr = await call(server, '/v1/getSubmittedPullRequest', TOKEN, { ...queueOf('held'), pr: { number: 1 } });
    expect(pr.status).toBe(200);
  });
});
