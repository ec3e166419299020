/**
 * Every route that writes waits for a busy queue the same way (api/queueBusy.ts), not only the API's procedures: a
 * git host's webhook delivery whose work meets a queue's lock held by another session (a stuck transaction of another
 * process, or someone at psql) runs again a little later, without blocking the process, and is answered once the lock
 * is let go, instead of a 503 at once. (Before, only the tRPC procedures waited; deliveries and dashboard forms
 * answered 503 at the first try.)
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { SCOPE_LOCK_KEY } from '../../engine/store/postgres/schema.js';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { KEY } from '../engine/queueHarness.js';
import { eventually } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL busy-route test: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(cluster === undefined)('a webhook delivery to a busy queue', () => {
  test('waits for the lock without blocking the process, and is applied once it is let go', async () => {
    const pgCluster = cluster as PgCluster;
    const url = await pgCluster.createDatabase();
    cleanups.push(() => pgCluster.dropDatabase(url));
    const store = openPostgresStore({ url, applicationName: 'busy-routes' });
    cleanups.push(() => store.close());
    const engine = new Engine(store, { onError: () => undefined });
    engine.start();
    cleanups.push(async () => engine.stop());
    const queueId = engine.createQueue(KEY, {}).id;
    let attempts = 0;
    // A git host's delivery route (hosts/hostPlugin.ts: InboundRoute), whose work is an input to the queue.
    const app = await buildServer({
      engine,
      routes: [
        {
          method: 'POST',
          path: '/host/webhooks',
          handle: async () => {
            attempts++;
            engine.submitPullRequest(KEY, 1);
            return { status: 202, message: 'accepted' };
          },
        },
      ],
    });
    cleanups.push(() => app.close());

    const outside = new pg.Client({ connectionString: url });
    outside.on('error', () => undefined);
    await outside.connect();
    cleanups.push(() => outside.end());
    await outside.query('BEGIN');
    await outside.query(`SELECT pg_advisory_xact_lock(${SCOPE_LOCK_KEY})`, [`queue:${queueId}`]);

    let answered = false;
    const delivery = app
      .inject({ method: 'POST', url: '/host/webhooks', headers: { 'content-type': 'application/json' }, payload: '{}' })
      .then((response) => {
        answered = true;
        return response;
      });
    // It met the lock and runs again, the process answering meanwhile.
    await eventually(
      async () => attempts,
      (n) => n >= 3,
      20_000,
    );
    expect(answered).toBe(false);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    await outside.query('COMMIT');
    const response = await delivery;
    expect(response.statusCode).toBe(202);
    expect(engine.getSubmittedPullRequest(KEY, 1).pr.number).toBe(1);
  });
});
