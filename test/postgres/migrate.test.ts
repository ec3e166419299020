/**
 * `greenline migrate` from an LMDB data folder into PostgreSQL, then the service on it; `greenline backup` and
 * `greenline restore` with GREENLINE_STORE: every entry of every collection arrives, and nothing merges two stores.
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import type { Store } from '../../engine/store/store.js';
import { call, eventually, runCli, startServer, stop, withDataDir, type Running } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL migrate tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const SIM = { GREENLINE_PROVIDER: 'sim', GREENLINE_SIM_CI: 'pass=1,median=0.005,p90=0.01,seed=3' };

async function entries(open: () => Store): Promise<Record<string, number>> {
  const store = open();
  try {
    return store.stats().entries;
  } finally {
    await store.close();
  }
}

describe.skipIf(cluster === undefined)('migrate, backup and restore with PostgreSQL', () => {
  test('a data folder migrates whole; the service runs on it; backups of it restore into another database', async () => {
    const pgCluster = cluster as PgCluster;
    await withDataDir(async (dir) => {
      const data = join(dir, 'data');
      const lmdbServer = await startServer({ GREENLINE_DATA: data, ...SIM });
      running.push(lmdbServer);
      const token = /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(lmdbServer.stdout())?.[1] ?? '';
      expect((await call(lmdbServer, '/v1/createQueue', token, { ...QUEUE, concurrency: 2 })).status).toBe(200);
      for (let number = 1; number <= 4; number++) {
        expect((await call(lmdbServer, '/v1/submitPullRequest', token, { ...QUEUE, pr: { number } })).status).toBe(200);
      }
      const state = async (server: Running, number: number) =>
        (
          (await (await call(server, '/v1/getSubmittedPullRequest', token, { ...QUEUE, pr: { number } })).json()) as {
            state: string;
          }
        ).state;
      await eventually(
        () => state(lmdbServer, 4),
        (value) => value === 'MERGED',
      );
      expect(await stop(lmdbServer)).toEqual({ code: 0, signal: null });

      const url = await pgCluster.createDatabase();
      const migrated = await runCli(['migrate', '--from', data, '--to', url], {});
      expect(migrated.code, migrated.stderr).toBe(0);
      const fromLmdb = await entries(() => openLmdbStore({ dir: data }));
      expect(fromLmdb.events).toBeGreaterThan(10);
      expect(await entries(() => openPostgresStore({ url }))).toEqual(fromLmdb);
      // Into a database that holds a store already: refused, nothing merged.
      const again = await runCli(['migrate', '--from', data, '--to', url], {});
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('not empty');

      // The service on PostgreSQL: the same token, queue and PRs; it goes on merging.
      const pgServer = await startServer({
        GREENLINE_DATA: join(dir, 'pg-data'),
        GREENLINE_STORE: url,
        GREENLINE_LEASE_MS: '1000',
        ...SIM,
      });
      running.push(pgServer);
      expect(pgServer.stdout()).not.toContain('glt_');
      expect(await state(pgServer, 2)).toBe('MERGED');
      expect((await call(pgServer, '/v1/submitPullRequest', token, { ...QUEUE, pr: { number: 5 } })).status).toBe(200);
      await eventually(
        () => state(pgServer, 5),
        (value) => value === 'MERGED',
      );

      // A backup of the PostgreSQL store, taken while it runs, restores into another (empty) database.
      const file = join(dir, 'pg.backup');
      const backup = await runCli(['backup', '--to', file], { GREENLINE_STORE: url });
      expect(backup.code, backup.stderr).toBe(0);
      await stop(pgServer);
      const other = await pgCluster.createDatabase();
      const restored = await runCli(['restore', '--from', file], { GREENLINE_STORE: other });
      expect(restored.code, restored.stderr).toBe(0);
      expect((await runCli(['restore', '--from', file], { GREENLINE_STORE: other })).code).toBe(1);
      // The same backup restores into a data folder (LMDB) too, with the same entries; PR 5 is in both.
      const back = await runCli(['restore', '--from', file, '--data', join(dir, 'restored')], {});
      expect(back.code, back.stderr).toBe(0);
      const restoredPg = await entries(() => openPostgresStore({ url: other }));
      expect(await entries(() => openLmdbStore({ dir: join(dir, 'restored') }))).toEqual(restoredPg);
      expect(restoredPg.pullRequests).toBe(5);
    });
  });
});
