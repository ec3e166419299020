/** The store conformance suite on PostgreSQL: a throwaway cluster, a fresh database per test. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { describeStoreConformance } from './store.conformance.js';
import { startPostgres, type PgCluster } from '../postgres/cluster.js';
import { postgresStore } from '../postgres/testStore.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL store tests: ${(started as { unavailable: string }).unavailable}`);

afterAll(async () => cluster?.stop());

if (cluster !== undefined) {
  describeStoreConformance('postgres', () => postgresStore(cluster));
  describe('PostgreSQL store connections', () => {
    test('a broken connection is opened again; a transaction it broke fails whole', async () => {
      const url = await cluster.createDatabase();
      const store = openPostgresStore({ url, applicationName: 'conn-test' });
      const terminate = () =>
        execFileSync(join(cluster.bin, 'psql'), [
          url,
          '-qAt',
          '-c',
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'conn-test:%'",
        ]);
      try {
        store.write((tx) => tx.put('meta', ['a'], 1));
        expect(() =>
          store.write((tx) => {
            tx.put('meta', ['b'], tx.get('meta', ['a']));
            terminate();
            tx.put('meta', ['c'], 1);
          }),
        ).toThrow();
        terminate();
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(store.read((tx) => [...tx.scan('meta')].map((entry) => entry.key))).toEqual([['a']]);
        store.write((tx) => tx.put('meta', ['d'], tx.count('meta')));
        expect(store.read((tx) => tx.get('meta', ['d']))).toBe(1);
      } finally {
        await store.close();
        await cluster.dropDatabase(url);
      }
    });
  });
} else {
  describe.skip('Store conformance: postgres (no PostgreSQL here)', () => test('skipped', () => undefined));
}
